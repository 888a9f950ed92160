package warcexport_test

// A WARC 1.1 reader written from the specification (ISO 28500:2017,
// sections 4-6), independent of the library that writes the file:
//
//	warc-file   = 1*warc-record
//	warc-record = header CRLF block CRLF CRLF
//	header      = version warc-fields
//	version     = "WARC/1.1" CRLF
//	warc-fields = *named-field CRLF        ; "Name: value" CRLF each
//
// Content-Length is the block's length in octets; WARC-Block-Digest is
// "algorithm:digest" over the block (sha1 in base32 here, as common
// practice and the spec's examples have it).

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

type warcRecord struct {
	Version string
	Fields  map[string]string // canonical names as written
	Order   []string
	Block   []byte
}

func (r warcRecord) get(name string) string {
	for k, v := range r.Fields {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// mandatory fields of every record (section 5.1 "Named fields", 5.2-5.5).
var mandatory = []string{"WARC-Record-ID", "Content-Length", "WARC-Date", "WARC-Type"}

func readWARC(r io.Reader) ([]warcRecord, error) {
	br := bufio.NewReader(r)
	var out []warcRecord
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("record %d: version line: %w", len(out), err)
		}
		if line != "WARC/1.1\r\n" {
			return out, fmt.Errorf("record %d: version line %q, want WARC/1.1 CRLF", len(out), line)
		}
		rec := warcRecord{Version: "WARC/1.1", Fields: map[string]string{}}
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return out, fmt.Errorf("record %d: header: %w", len(out), err)
			}
			if !strings.HasSuffix(line, "\r\n") {
				return out, fmt.Errorf("record %d: header line %q not CRLF-terminated", len(out), line)
			}
			line = strings.TrimSuffix(line, "\r\n")
			if line == "" {
				break
			}
			name, value, ok := strings.Cut(line, ":")
			if !ok || name == "" || strings.ContainsAny(name, " \t") {
				return out, fmt.Errorf("record %d: bad field %q", len(out), line)
			}
			if _, dup := rec.Fields[name]; dup {
				return out, fmt.Errorf("record %d: field %s repeated", len(out), name)
			}
			rec.Fields[name] = strings.TrimSpace(value)
			rec.Order = append(rec.Order, name)
		}
		for _, f := range mandatory {
			if rec.get(f) == "" {
				return out, fmt.Errorf("record %d: mandatory field %s missing", len(out), f)
			}
		}
		n, err := strconv.ParseInt(rec.get("Content-Length"), 10, 64)
		if err != nil || n < 0 {
			return out, fmt.Errorf("record %d: Content-Length %q", len(out), rec.get("Content-Length"))
		}
		if n > 0 && rec.get("Content-Type") == "" {
			return out, fmt.Errorf("record %d: Content-Type missing for a non-empty block", len(out))
		}
		rec.Block = make([]byte, n)
		if _, err := io.ReadFull(br, rec.Block); err != nil {
			return out, fmt.Errorf("record %d: block: %w", len(out), err)
		}
		end := make([]byte, 4)
		if _, err := io.ReadFull(br, end); err != nil || !bytes.Equal(end, []byte("\r\n\r\n")) {
			return out, fmt.Errorf("record %d: end of record %q, want CRLF CRLF (%v)", len(out), end, err)
		}
		if err := checkDigest(rec); err != nil {
			return out, fmt.Errorf("record %d: %w", len(out), err)
		}
		out = append(out, rec)
	}
}

func checkDigest(r warcRecord) error {
	d := r.get("WARC-Block-Digest")
	algo, val, ok := strings.Cut(d, ":")
	if !ok {
		return fmt.Errorf("WARC-Block-Digest %q missing or malformed", d)
	}
	if !strings.EqualFold(algo, "sha1") {
		return fmt.Errorf("digest algorithm %q (expected sha1)", algo)
	}
	sum := sha1.Sum(r.Block)
	if want := base32.StdEncoding.EncodeToString(sum[:]); !strings.EqualFold(val, want) {
		return errors.New("block digest " + val + " does not match the block (sha1:" + want + ")")
	}
	return nil
}
