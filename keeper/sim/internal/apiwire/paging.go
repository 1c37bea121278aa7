package apiwire

import (
	"maps"
	"slices"
)

// Paging returns the page and the page size of a request: page 0 is the first, a missing or zero
// page size means defaultPageSize, and sizes above maxPageSize are capped.
func Paging(page, size *int) (int, int) {
	p, n := 0, defaultPageSize
	if page != nil {
		p = *page
	}
	if size != nil && *size > 0 {
		n = min(*size, maxPageSize)
	}
	return p, n
}

// NewPageInfo returns the filter-scoped page envelope.
func NewPageInfo(page, size, total int) *PageInfo {
	return &PageInfo{Page: page, PageSize: size, TotalItems: total, TotalPages: (total + size - 1) / size}
}

// PageOf returns the items of one page.
func PageOf[T any](items []T, page, size int) []T {
	lo := page * size
	if lo >= len(items) || lo < 0 {
		return nil
	}
	return items[lo:min(len(items), lo+size)]
}

// InOrEmpty reports whether v is in set, or set is empty.
func InOrEmpty(set []string, v string) bool { return len(set) == 0 || slices.Contains(set, v) }

// AnyIn reports whether some element of vals is in set.
func AnyIn[T comparable](set, vals []T) bool {
	for _, v := range vals {
		if slices.Contains(set, v) {
			return true
		}
	}
	return false
}

// Keys returns the keys of a set, sorted.
func Keys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// AppendUnique appends v unless present.
func AppendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// Paging defaults and bounds of the simulator's listings.
const (
	defaultPageSize = 20
	maxPageSize     = 500
)
