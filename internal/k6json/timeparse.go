package k6json

import "time"

// parseTimeFast parses the RFC 3339 times k6 writes
// ("2026-11-29T14:50:27.435275183Z", "2026-11-29T11:50:38.734479437-03:00") into
// Unix nanoseconds. ok is false for anything outside that strict form (more than
// nine fraction digits, lower-case 't' or 'z', a leap second, ...); the caller then
// asks the standard library, whose verdict is final.
func parseTimeFast(b []byte) (unixNano int64, ok bool) {
	// YYYY-MM-DDTHH:MM:SS is 19 bytes, then an optional fraction, then Z or ±HH:MM.
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, false
	}
	// Years far from now go to the standard parser, which also checks that the
	// instant fits in int64 nanoseconds (years 1678 to 2262).
	if year < 1900 || year > 2200 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	i := 19
	var nanos int64
	if b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			nanos = nanos*10 + int64(b[i]-'0')
			i++
		}
		n := i - start
		if n == 0 || n > 9 {
			return 0, false
		}
		for ; n < 9; n++ {
			nanos *= 10
		}
	}
	if i >= len(b) {
		return 0, false
	}
	var offset int64 // seconds east of UTC
	switch b[i] {
	case 'Z':
		if i+1 != len(b) {
			return 0, false
		}
	case '+', '-':
		if len(b)-i != 6 || b[i+3] != ':' {
			return 0, false
		}
		oh, okh := digits(b[i+1 : i+3])
		om, okm := digits(b[i+4 : i+6])
		if !okh || !okm || oh > 23 || om > 59 {
			return 0, false
		}
		offset = int64(oh*3600 + om*60)
		if b[i] == '-' {
			offset = -offset
		}
	default:
		return 0, false
	}
	days := daysFromCivil(int64(year), int64(month), int64(day))
	secs := days*86400 + int64(hour*3600+minute*60+sec) - offset
	return secs*1e9 + nanos, true
}

// parseTimeStd is the reference: the standard library's strict RFC 3339 parser,
// the one encoding/json uses for time.Time.
func parseTimeStd(s []byte) (time.Time, error) {
	var t time.Time
	err := t.UnmarshalText(s)
	return t, err
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to the given proleptic
// Gregorian date (Howard Hinnant's well-known algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
