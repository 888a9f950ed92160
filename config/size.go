package config

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// Size is a number of bytes. In a site file it is a plain integer (bytes)
// or a number with a unit: B, KB/MB/GB (powers of 1000), KiB/MiB/GiB
// (powers of 1024), e.g. "10MiB" or "1.5MB".
type Size int64

// sizeRe splits "1.5 MiB" into number and unit; no sign, exponent, NaN or Inf.
var sizeRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)$`)

// maxSizeDigits bounds the numeral parsed (an int64 has 19 digits).
const maxSizeDigits = 40

var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1000, "kb": 1000, "m": 1000 * 1000, "mb": 1000 * 1000, "g": 1000 * 1000 * 1000, "gb": 1000 * 1000 * 1000,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
}

// ParseSize parses a size. The arithmetic is exact (math/big): a result
// that is not a whole number of bytes ("1.5", "0.1KB") or does not fit in
// an int64 is an error, never rounded or wrapped. (humanize.ParseBytes goes
// through float64 and truncates "1.5" to 1 byte, which is why it is not used.)
func ParseSize(s string) (Size, error) {
	m := sizeRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("invalid size %q (want bytes or a number with a unit: 10MiB, 500KB)", s)
	}
	if len(m[1]) > maxSizeDigits {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	unit, ok := sizeUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (B, KB, MB, GB, KiB, MiB, GiB)", s, m[2])
	}
	r, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(unit))
	if !r.IsInt() {
		return 0, fmt.Errorf("invalid size %q: not a whole number of bytes", s)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return Size(r.Num().Int64()), nil
}

// String formats the size with the largest binary unit that divides it.
func (s Size) String() string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s != 0 && int64(s)%u.n == 0 {
			return fmt.Sprintf("%d%s", int64(s)/u.n, u.name)
		}
	}
	return fmt.Sprintf("%dB", int64(s))
}
