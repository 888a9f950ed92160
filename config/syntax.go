package config

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// maxSyntaxScan bounds how many lines past the reported one syntaxProblem
// looks for the line where a YAML syntax error really is.
const maxSyntaxScan = 200

var yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxProblem turns a YAML syntax error into a Problem on the line where
// the error is. The YAML parser names the line where the construct that
// failed began (a flow sequence, a block mapping), and for parser errors
// one line too early (go.yaml.in/yaml/v3 decode.go, parser.fail, reports a
// 0-based mark as a line number): the real line is the first line whose
// prefix of the file fails with the same message.
func syntaxProblem(data []byte, err error) Problem {
	m := yamlLineRe.FindStringSubmatch(err.Error())
	if m == nil {
		msg := err.Error()
		if len(msg) > 6 && msg[:6] == "yaml: " {
			msg = msg[6:]
		}
		return Problem{Msg: msg}
	}
	reported, _ := strconv.Atoi(m[1])
	msg := m[2]
	ends := lineEnds(data)
	for k := max(reported, 1); k <= len(ends) && k <= reported+maxSyntaxScan; k++ {
		if sameSyntaxError(data[:ends[k-1]], msg) {
			return Problem{Line: k, Msg: msg}
		}
	}
	return Problem{Line: reported, Msg: msg}
}

// lineEnds returns, for each line of data, the offset just after it.
func lineEnds(data []byte) []int {
	var ends []int
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			ends = append(ends, len(data))
			break
		}
		off += i + 1
		ends = append(ends, off)
	}
	return ends
}

// sameSyntaxError reports whether decoding prefix fails with msg.
func sameSyntaxError(prefix []byte, msg string) bool {
	var n yaml.Node
	err := yaml.NewDecoder(bytes.NewReader(prefix)).Decode(&n)
	if err == nil || errors.Is(err, io.EOF) {
		return false
	}
	m := yamlLineRe.FindStringSubmatch(err.Error())
	return m != nil && m[2] == msg
}
