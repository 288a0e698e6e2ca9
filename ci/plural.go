package ci

import "fmt"

// Count is "1 process" or "2 processes": n with the noun that agrees
// with it, for every count a person reads.
func Count[N ~int | ~int64 | ~uint64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
