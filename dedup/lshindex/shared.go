package lshindex

import (
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// Shared computes, for an index whose postings live elsewhere (a shared
// index in Redis: dedup/redisindex), the keys Index stores and the filters
// Index applies, with the same hashing and thresholds, so both propose the
// same candidates for the same entries.
type Shared struct {
	cfg Config
}

// NewShared returns the keys and filters of an Index for cfg (validated as
// New validates it).
func NewShared(cfg Config) (*Shared, error) {
	x, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Shared{cfg: x.cfg}, nil
}

// EntryKeys are the keys of an indexed entry.
type EntryKeys struct {
	Tokens int           // number of tokens (spots with repeats)
	Bands  [Bands]uint32 // band b's key; meaningless when Tokens is 0
	// HeadTokens are the keys of the entry's head tokens, HeadClass their
	// length class: the entry is posted in list (token, HeadClass) of each
	// (Index keeps the newest HeadListCap postings of a list). Empty when
	// the entry has no head.
	HeadTokens []uint64
	HeadClass  uint32
}

// Keys returns the keys of an entry with signature sig; df(spot) is the
// number of entries indexed so far whose signature holds spot (the head
// is the rarest tokens at the time of Add).
func (s *Shared) Keys(sig spotsigs.Signature, df func(spot uint64) uint32) EntryKeys {
	toks := tokenKeys(sig, nil)
	k := EntryKeys{Tokens: len(toks)}
	if len(toks) == 0 {
		return k
	}
	bandKeys(toks, &k.Bands)
	if h := s.cfg.headSize(len(toks)); h > 0 {
		k.HeadClass = lengthClass(len(toks))
		k.HeadTokens = headTokens(sig, h, func(i int) uint32 { return df(sig[i]) })
	}
	return k
}

// Lookup is a query in the shared form: the band keys to read, the head
// lists to read, and the filters for what they return.
type Lookup struct {
	s      *Shared
	q      dedup.Query
	lx     int
	cont   bool
	bitmap []uint64
	Bands  [Bands]uint32
	// HeadTokens × HeadClasses are the head lists to read, when the index
	// holds entries of the class (Index skips empty classes).
	HeadTokens  []uint64
	HeadClasses []uint32
}

// Lookup returns the query for fp under q; nil when fp has no spots or q
// asks for no SpotSigs candidates (then only the text hash is looked up).
func (s *Shared) Lookup(fp *dedup.Fingerprint, q dedup.Query) *Lookup {
	if len(fp.Signature) == 0 || q.NoSpotSigs {
		return nil
	}
	toks := tokenKeys(fp.Signature, nil)
	p := &Lookup{s: s, q: q, lx: len(toks), bitmap: appendBitmap(nil, toks)}
	bandKeys(toks, &p.Bands)
	p.cont = q.Containment > 0 && s.cfg.Containment > 0 && p.lx >= s.cfg.MinContainment
	if p.cont {
		p.HeadClasses = briefClasses(p.lx, s.cfg.MinContainment)
		for _, t := range toks {
			p.HeadTokens = append(p.HeadTokens, t.Key())
		}
	}
	return p
}

// Keep reports whether an entry with signature sig, met through the bands
// (lsh) and/or headHits of the head lists read, is a candidate: Index's
// path rule and exact bitmap filter.
func (p *Lookup) Keep(sig spotsigs.Signature, lsh bool, headHits int) bool {
	toks := tokenKeys(sig, nil)
	ly := len(toks)
	if ly == 0 || (!lsh && headHits == 0) {
		return false
	}
	var flags uint64
	if lsh {
		flags |= fromLSH
	}
	if headHits > 0 {
		flags |= fromHead
	}
	if !p.s.cfg.pathOK(p.lx, ly, flags, headHits) {
		return false
	}
	return p.s.cfg.bitmapOK(p.q, p.cont, p.lx, ly, p.bitmap, appendBitmap(nil, toks))
}
