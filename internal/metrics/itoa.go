package metrics

import "strconv"

// statusText holds the decimal text of the HTTP statuses, made once: every
// request's status tag would otherwise allocate.
var statusText = func() (s [1000]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func formatInt(n int) string { return strconv.Itoa(n) }
