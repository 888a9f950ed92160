package dedup

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/imgfp"
)

const colours = "KBGCRMYW"

// photoFP is a fixed 8×8 fingerprint: a sky over a ground with a red block.
var photoFP = imgfp.Fingerprint{Cols: 8, Rows: 8, Blocks: strings.Repeat("C", 24) + "CRRCCYCC" + strings.Repeat("G", 32)}

// changed returns fp with the blocks at the given indexes set to another colour.
func changed(fp imgfp.Fingerprint, idx ...int) imgfp.Fingerprint {
	b := []byte(fp.Blocks)
	for _, i := range idx {
		b[i] = colours[(strings.IndexByte(colours, b[i])+1)%8]
	}
	fp.Blocks = string(b)
	return fp
}

func TestImageEvidence(t *testing.T) {
	s1 := story(t, "s1")
	long := join(s1.Paragraphs)
	captionA := "图为昨日清晨的江城东湖，湖面结起薄冰。"
	captionB := "市民在东湖边拍照留念。"
	tests := []struct {
		name          string
		storedText    string
		storedImage   imgfp.Fingerprint
		text          string
		image         imgfp.Fingerprint
		dup           bool
		reason        string
		minSimilarity float64
		title         string // the new page's headline; "" means 东湖 (shares the stored 东湖冰景's bigram)
	}{
		{"same photo, other caption", captionA, photoFP, captionB, photoFP, true, "image", 1, ""},
		{"photo with 3 of 64 blocks changed", captionA, photoFP, captionB, changed(photoFP, 0, 27, 54), true, "image", MinImageSimilarity, ""},
		{"photo with 4 of 64 blocks changed", captionA, photoFP, captionB, changed(photoFP, 0, 18, 36, 54), false, "new", 0, ""},
		{"other photo", captionA, photoFP, captionB, changed(photoFP, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36), false, "new", 0, ""},
		{"no image on the new page", captionA, photoFP, captionB, imgfp.Fingerprint{}, false, "new", 0, ""},
		{"no image on the stored page", captionA, imgfp.Fingerprint{}, captionB, photoFP, false, "new", 0, ""},
		{"same caption: the text rule decides", captionA, photoFP, captionA, changed(photoFP, 24, 25, 26, 27, 28, 29, 30, 31), true, "exact", 0, ""},
		{"long stored text: not compared by image", long, photoFP, captionB, photoFP, false, "new", 0, ""},
		{"long new text: not compared by image", captionA, photoFP, long, photoFP, false, "new", 0, ""},
		{"same photo, rewritten headline", captionA, photoFP, captionB, photoFP, true, "image", 1, "冰封东湖美如画"},
		{"same photo, unrelated headline", captionA, photoFP, captionB, photoFP, false, "new", 0, "古城墙夜景"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, Options{})
			stored := e.Fingerprint("东湖冰景", tc.storedText)
			stored.Image = tc.storedImage
			check(t, e.Add(t.Context(), 1, 0, stored))
			title := tc.title
			if title == "" {
				title = "东湖"
			}
			fp := e.Fingerprint(title, tc.text)
			fp.Image = tc.image
			v := decide(t, e, fp)
			if v.Duplicate != tc.dup || v.Reason != tc.reason {
				t.Fatalf("verdict %+v, want duplicate=%v reason=%s", v, tc.dup, tc.reason)
			}
			if tc.reason == "image" && (v.DupOf != 1 || v.Matched != 1 || v.ImageSimilarity < tc.minSimilarity || v.ImageSimilarity > 1) {
				t.Errorf("evidence %+v, want a match with article 1 at similarity >= %.3f", v, tc.minSimilarity)
			}
			if tc.reason != "image" && v.ImageSimilarity != 0 {
				t.Errorf("image similarity %.3f on a %s verdict", v.ImageSimilarity, v.Reason)
			}
		})
	}
}

// A restored entry (from the store) and a cluster member are compared by
// image too, and the verdict names the member's current cluster.
func TestImageEvidenceRestoredAndMembers(t *testing.T) {
	e := testEngine(t, Options{})
	fp := e.Fingerprint("东湖冰景", "图为昨日清晨的江城东湖。")
	check(t, e.Restore(t.Context(), Entry{ID: 7, Cluster: 5, Simhash: fp.Simhash, Signature: fp.Signature, Hash: fp.Hash, Title: fp.Title, Image: photoFP}))
	q := e.Fingerprint("东湖的冰", "东湖边的冰。")
	q.Image = changed(photoFP, 3)
	if v := decide(t, e, q); !v.Duplicate || v.Reason != "image" || v.Matched != 7 || v.DupOf != 5 {
		t.Fatalf("restored entry: %+v", v)
	}
	if e.Images() != 1 {
		t.Errorf("Images() = %d, want 1", e.Images())
	}
	other := changed(photoFP, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49)
	m := e.Fingerprint("东湖冰景又一张", "另一张照片。")
	m.Image = other
	check(t, e.AddMember(t.Context(), 99, 5, m))
	q.Image = changed(other, 1)
	if v := decide(t, e, q); !v.Duplicate || v.Matched != 99 || v.DupOf != 5 {
		t.Fatalf("member: %+v", v)
	}
	eco := testEngine(t, Options{CentresOnly: true})
	check(t, eco.AddMember(t.Context(), 99, 5, m))
	if v := decide(t, eco, q); v.Duplicate {
		t.Fatalf("centres only indexed a member's image: %+v", v)
	}
}

// The banded index finds exactly the fingerprints a full scan finds.
func TestImageIndexIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := newImageIndex(MinImageSimilarity)
	var all []imgfp.Fingerprint
	for i := range 300 {
		fp := photoFP
		if i%3 != 0 {
			fp = randomFP(rng)
		}
		fp = changed(fp, rng.Perm(64)[:rng.IntN(12)]...)
		all = append(all, fp)
		x.add(Entry{ID: uint64(i + 1), Cluster: uint64(i + 1), Image: fp})
	}
	for q := range 200 {
		query := changed(all[rng.IntN(len(all))], rng.Perm(64)[:rng.IntN(10)]...)
		var want float64
		found := false
		for _, fp := range all {
			if s, _ := imgfp.Similarity(query, fp); s >= MinImageSimilarity {
				found, want = true, max(want, s)
			}
		}
		_, got, ok := x.best(query, func(imageEntry) bool { return true })
		if ok != found || got != want {
			t.Fatalf("query %d: index %v %.4f, scan %v %.4f", q, ok, got, found, want)
		}
	}
}

func randomFP(rng *rand.Rand) imgfp.Fingerprint {
	b := make([]byte, 64)
	for i := range b {
		b[i] = colours[rng.IntN(8)]
	}
	return imgfp.Fingerprint{Cols: 8, Rows: 8, Blocks: string(b)}
}

// TestImageIndexSnapshot: the engine's snapshot carries its lead-image
// index, so an engine loaded from it decides photo pages as the one that
// wrote it; a damaged image section is refused.
func TestImageIndexSnapshot(t *testing.T) {
	e := testEngine(t, Options{})
	fp := e.Fingerprint("东湖冰景", "图为昨日清晨的江城东湖。")
	fp.Image = photoFP
	check(t, e.Add(t.Context(), 7, 0, fp))
	check(t, e.Add(t.Context(), 8, 0, e.Fingerprint("长江大桥", join(story(t, "s1").Paragraphs))))
	var b bytes.Buffer
	if err := e.WriteSnapshot(&b); err != nil {
		t.Fatal(err)
	}
	q := e.Fingerprint("东湖的冰", "东湖边的冰。")
	q.Image = changed(photoFP, 3)
	for _, tc := range []struct {
		name    string
		data    []byte
		wantErr bool
	}{
		{"whole", b.Bytes(), false},
		{"image section damaged", func() []byte { d := bytes.Clone(b.Bytes()); d[6] ^= 1; return d }(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := testEngine(t, Options{})
			err := l.ReadSnapshot(&io.LimitedReader{R: bytes.NewReader(tc.data), N: int64(len(tc.data))})
			if (err != nil) != tc.wantErr {
				t.Fatalf("ReadSnapshot: %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				if !errors.Is(err, ErrSnapshot) || l.Images() != 0 || l.Len() != 0 {
					t.Fatalf("error %v, %d images, %d entries after a failed read", err, l.Images(), l.Len())
				}
				return
			}
			if l.Images() != 1 || l.Len() != 2 {
				t.Fatalf("loaded %d images, %d entries; want 1, 2", l.Images(), l.Len())
			}
			if v := decide(t, l, q); !v.Duplicate || v.Reason != "image" || v.Matched != 7 {
				t.Fatalf("verdict after the snapshot: %+v", v)
			}
		})
	}
}
