package harness

// plural picks the word for n, for the reasons and errors harness words
// itself (Inconclusive, Weakened, its own failures); reports are ci's.
func plural[N int | uint64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
