package storage_test

import (
	"testing"

	"github.com/newsdedup/newscrawl/storage"
)

func TestTitleRules(t *testing.T) {
	tests := []struct {
		name, title, q     string
		match              bool
		caseless, stableFd bool // of q
	}{
		{"Chinese substring", "国务院常务会议", "常务", true, true, true},
		{"Chinese absent", "国务院常务会议", "经济", false, true, true},
		{"ASCII other case", "Apple iPhone", "IPHONE", true, false, true},
		{"Greek other case", "ΑΘΉΝΑ", "αθήνα", true, false, false},
		{"k has the Kelvin sign as a partner", "\u212Aelvin", "kelvin", true, false, false},
		{"digits and punctuation", "增长50%", "50%", true, true, true},
		{"invalid UTF-8 query", "abc", "\xff", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := storage.TitleMatches(tc.title, tc.q); got != tc.match {
				t.Errorf("TitleMatches(%q, %q) = %v, want %v", tc.title, tc.q, got, tc.match)
			}
			if got := storage.Caseless(tc.q); got != tc.caseless {
				t.Errorf("Caseless(%q) = %v, want %v", tc.q, got, tc.caseless)
			}
			if got := storage.StableFold(tc.q); got != tc.stableFd {
				t.Errorf("StableFold(%q) = %v, want %v", tc.q, got, tc.stableFd)
			}
		})
	}
}
