package extract

import (
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Lead image rules. The lead image is the picture a portal shows for the
// article: the og:image / twitter:image <meta> when the page names one,
// else the first large <img> inside the chosen article block.
const (
	// minLeadImageSide: an <img> whose declared width or height is under
	// this many pixels is an icon, a button or a thumbnail, not a photo.
	// Images without declared sizes are accepted (portals rarely set them
	// on photos), unless their name says icon, logo or pixel.
	minLeadImageSide = 100
	// maxImageURLLength: longer image URLs are refused (data smuggled in
	// a query string; the crawler's own URL limit is larger).
	maxImageURLLength = 2048
)

// imageMetas are the <meta> keys naming a page's lead image, best first.
var imageMetas = map[string]int{"og:image": 1, "og:image:url": 1, "og:image:secure_url": 2, "twitter:image": 3, "twitter:image:src": 3}

// notPhotoWords mark the file names and classes of images that are not
// the article's picture: icons, logos, tracking pixels, spacers, avatars,
// share buttons, QR codes.
var notPhotoWords = []string{"logo", "icon", "pixel", "spacer", "blank", "avatar", "share", "qrcode", "erweima", "loading", "btn", "button", "emoji", "1x1", "beacon", "tracker", "stat.gif", "count.gif"}

// metaImage returns the candidate of an image <meta> with its rank.
func metaImage(key, content string) (string, int) {
	r, ok := imageMetas[key]
	if !ok {
		return "", 0
	}
	return content, r
}

// firstLeadImage returns the src of the first <img> under the nodes that
// looks like a photo (see isPhotoImg), or "".
func firstLeadImage(nodes []*html.Node) string {
	for _, n := range nodes {
		if src := leadImageIn(n, 0); src != "" {
			return src
		}
	}
	return ""
}

func leadImageIn(n *html.Node, depth int) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Img {
		if src := imgSource(n); src != "" && isPhotoImg(n, src) {
			return src
		}
		return ""
	}
	if depth > maxRenderDepth {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if src := leadImageIn(c, depth+1); src != "" {
			return src
		}
	}
	return ""
}

// imgSource is an <img>'s picture: lazy-loading attributes first (portals
// put a placeholder in src and the photo in data-src / data-original).
func imgSource(n *html.Node) string {
	for _, k := range []string{"data-original", "data-src", "data-lazy-src", "src"} {
		if v := strings.TrimSpace(attr(n, k)); v != "" {
			return v
		}
	}
	return ""
}

// isPhotoImg reports whether an <img> can be an article's photo: no
// declared side under minLeadImageSide, and neither its source nor its
// class or id names an icon, a logo or a pixel.
func isPhotoImg(n *html.Node, src string) bool {
	for _, k := range []string{"width", "height"} {
		if v := strings.TrimSuffix(strings.TrimSpace(attr(n, k)), "px"); v != "" {
			if px, err := strconv.Atoi(v); err == nil && px < minLeadImageSide {
				return false
			}
		}
	}
	return isPhotoURL(src + " " + attr(n, "class") + " " + attr(n, "id"))
}

// isPhotoURL reports whether an image URL (with the class and id of its
// element) names none of notPhotoWords: portals also put their logo in
// og:image.
func isPhotoURL(names string) bool {
	names = strings.ToLower(names)
	if strings.HasPrefix(strings.TrimSpace(names), "data:") {
		return false
	}
	for _, w := range notPhotoWords {
		if strings.Contains(names, w) {
			return false
		}
	}
	return true
}

// resolveImage makes an image reference absolute against the page URL and
// returns it when it is an http(s) URL of a picture ("" otherwise: data:
// URLs, javascript:, SVG, overlong or unparsable references, and relative
// references on a page without a URL).
func resolveImage(pageURL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || len(ref) > maxImageURLLength {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if !u.IsAbs() {
		base, err := url.Parse(pageURL)
		if err != nil || !base.IsAbs() {
			return ""
		}
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	if strings.HasSuffix(strings.ToLower(u.Path), ".svg") {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
