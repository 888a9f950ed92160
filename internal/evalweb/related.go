package evalweb

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/storage"
)

// RelatedLinks is how often explain names, for a stored follow-up, the
// story it re-uses among the article's related articles
// (explain.FindRelated): Linked of FollowUps stored follow-ups.
type RelatedLinks struct {
	FollowUps, Linked int
	// Missed are the URLs of the stored follow-ups not linked.
	Missed []string
	// Links counts the related articles explain names over every stored
	// article, Unrelated those between stories that truth.jsonl does not
	// relate (neither one story, a follow-up of the other, nor a copy
	// into which the generator inserted sentences of the other).
	Links, Unrelated int
}

// truthStory is the part of a truth.jsonl line the link check reads.
type truthStory struct {
	URL        string `json:"url"`
	StoryID    string `json:"story_id"`
	StoryKind  string `json:"story_kind"`
	FollowupOf string `json:"followup_of"`
	// Edits are the generator's edits of the copy; an "add" edit with
	// from_story inserted sentences of that story.
	Edits []struct {
		Op        string `json:"op"`
		FromStory string `json:"from_story"`
	} `json:"edits"`
}

// borrows reports whether the copy t inserted sentences of story.
func (t truthStory) borrows(story string) bool {
	for _, e := range t.Edits {
		if e.Op == "add" && e.FromStory == story {
			return true
		}
	}
	return false
}

// related reports whether truth.jsonl relates the stories of copies a
// and b: one story, a follow-up of the other, or a copy that inserted
// sentences of the other's story.
func related(a, b truthStory) bool {
	return a.StoryID == b.StoryID || a.FollowupOf == b.StoryID || b.FollowupOf == a.StoryID ||
		a.borrows(b.StoryID) || b.borrows(a.StoryID)
}

// relatedLinks checks explain's related articles of every stored
// follow-up of the reprint web against truth.jsonl's followup_of.
func relatedLinks(ctx context.Context, shared string, store storage.Store) (*RelatedLinks, error) {
	path := filepath.Join(shared, "bench", "dev", "truth.jsonl")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	truth := map[string]truthStory{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var t truthStory
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		truth[t.URL] = t
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var stored []storage.Article
	if err := store.Articles(ctx, func(a storage.Article) error {
		stored = append(stored, a)
		return nil
	}); err != nil {
		return nil, err
	}
	out := &RelatedLinks{}
	for i := range stored {
		a := &stored[i]
		rel, err := explain.FindRelated(ctx, store, a)
		if err != nil {
			return nil, err
		}
		ta := truth[a.URL]
		linked := false
		for _, r := range rel {
			tr := truth[r.URL]
			out.Links++
			if !related(ta, tr) {
				out.Unrelated++
			}
			linked = linked || tr.StoryID == ta.FollowupOf
		}
		if ta.StoryKind != "followup" || ta.FollowupOf == "" {
			continue
		}
		out.FollowUps++
		if linked {
			out.Linked++
		} else {
			out.Missed = append(out.Missed, a.URL)
		}
	}
	return out, nil
}

// write prints the link figures.
func (l *RelatedLinks) write(w io.Writer) {
	share := 0.0
	if l.FollowUps > 0 {
		share = float64(l.Linked) / float64(l.FollowUps)
	}
	fmt.Fprintf(w, "\nrelated articles (explain of a stored follow-up names the story it re-uses): %d of %d stored follow-ups (%.3f)\n",
		l.Linked, l.FollowUps, share)
	fmt.Fprintf(w, "related links over every stored article: %d; between stories truth.jsonl does not relate (one story, a follow-up, sentences inserted from the other): %d\n", l.Links, l.Unrelated)
	for _, u := range l.Missed {
		fmt.Fprintf(w, "  not linked: %s\n", u)
	}
}
