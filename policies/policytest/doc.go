// Package policytest runs policy unit tests, the files `keeper test`
// takes: given market state, a policy must plan exactly the expected
// actions.
//
// A test file is YAML, loaded as strictly as policy files (unknown keys,
// wrong types and bad values are errors at file:line:col):
//
//	policy_files: [policies.yaml]     # relative to the test file
//	tests:
//	  - name: repays a low loan
//	    now: 2025-06-01T12:00:00Z
//	    observations:
//	      wallet: <base58>            # default DefaultWallet
//	      snapshot_time: <RFC 3339>   # default now
//	      tokens: { <mint>: { symbol: USDC, decimals: 6, price_usd: 1 } }
//	      loans: [ <loans-info item, wire shape> ]
//	      positions: [ <simplified CLMM position> ]
//	      withdrawals: [ <earn withdrawal queue, wire shape> ]
//	      earn_positions: [ <earn position, wire shape> ]   # a request is claimed only if listed here
//	      vaults: [ <vault record, wire shape> ]
//	      quotes: [ { principal_mint, duration: 7 days, quote: <quote record, wire shape> } ]
//	    history: { <policy>: { targets: { <target>: { last_action, in_flight } },
//	               spent_today: { <mint>: n }, fees_today: n, actions_this_run: n } }
//	    pending_since: { <policy>: { <target>: <RFC 3339> } }
//	    expect:
//	      - policy: repay-usdc
//	        target: <target key>
//	        kind: repay                 # optional
//	        request: { ... }            # optional, partial: only listed fields are compared
//	        reason_contains: "repay"    # optional
//	    skipped:                        # optional; when present, compared in full
//	      - { policy: p, target: t, reason: cooldown }
//
// Wire-shape observations use the market API's JSON field names (camelCase)
// and are checked against the market types' fields, so a misspelt field is
// an error too. Every enabled policy of the policy files is evaluated at
// `now`; the planned actions must match `expect` one to one (`expect: []`
// for none). A failing test reports expected against got, field by field.
package policytest
