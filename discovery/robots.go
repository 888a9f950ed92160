package discovery

import (
	"bufio"
	"bytes"
	"strings"
)

// maxRobotsSitemaps bounds the Sitemap lines taken from one robots.txt;
// portals list a handful, and a hostile file could list millions.
const maxRobotsSitemaps = 1000

// RobotsSitemaps returns the Sitemap: lines of a robots.txt
// (case-insensitive key, any group, UTF-8 BOM tolerated), in file order,
// without duplicates, at most maxRobotsSitemaps. As in Google's parser, a
// whole or partial byte order mark (EF BB BF, EF BB, EF) before the first
// line is skipped, and text after # is a comment.
func RobotsSitemaps(robots []byte) []string {
	robots = trimPartialBOM(robots)
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(robots))
	sc.Buffer(make([]byte, 0, 4096), robotsMaxLine)
	sc.Split(scanRobotsLines)
	for sc.Scan() && len(out) < maxRobotsSitemaps {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "sitemap") {
			continue
		}
		val = strings.TrimSpace(val)
		if val == "" || seen[val] {
			continue
		}
		seen[val] = true
		out = append(out, val)
	}
	return out
}

// robotsMaxLine is the longest robots.txt line read; longer lines end the
// scan (Google reads at most 500 KiB of a robots.txt anyway).
const robotsMaxLine = 64 * 1024

// trimPartialBOM drops a UTF-8 byte order mark or a prefix of one.
func trimPartialBOM(b []byte) []byte {
	for _, p := range []string{utf8BOM, utf8BOM[:2], utf8BOM[:1]} {
		if bytes.HasPrefix(b, []byte(p)) {
			return b[len(p):]
		}
	}
	return b
}

// scanRobotsLines splits at \n, \r\n or a lone \r, as robots.txt allows.
func scanRobotsLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		adv := i + 1
		if data[i] == '\r' {
			if i+1 == len(data) && !atEOF {
				return 0, nil, nil // a \n may follow
			}
			if i+1 < len(data) && data[i+1] == '\n' {
				adv++
			}
		}
		return adv, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
