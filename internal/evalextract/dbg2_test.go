package evalextract

import (
	"bytes"
	"net/url"
	"os"
	"testing"

	"codeberg.org/readeck/go-readability/v2"
	"github.com/newsdedup/newscrawl/decode"
	"golang.org/x/net/html"
)

func TestDbgRaw(t *testing.T) {
	f := os.Getenv("RAWFILE")
	if f == "" {
		t.Skip()
	}
	body, _ := os.ReadFile(f)
	u8, _, _ := decode.ToUTF8(body, "", "")
	doc, _ := html.Parse(bytes.NewReader(u8))
	p := readability.NewParser()
	a, err := p.ParseAndMutate(doc, &url.URL{})
	var b bytes.Buffer
	if a.Node != nil {
		html.Render(&b, a.Node)
	}
	t.Logf("err %v\n%s", err, b.String())
}
