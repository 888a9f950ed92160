package evaldedup

import (
	"fmt"
	"io"
	"sort"
)

// Series is one line of a plot.
type Series struct {
	Name   string
	Points [][2]float64 // (x, y)
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"}

// WriteSVG draws a line plot with y in [ymin, 1], in the style of Figure 2
// of Li Gang et al. (2013): recall against the share of text edited.
func WriteSVG(w io.Writer, title, xlabel, ylabel string, ymin float64, series []Series) error {
	const W, H, L, R, T, B = 720.0, 400.0, 60.0, 240.0, 40.0, 50.0
	xmax := 0.0
	for _, s := range series {
		for _, p := range s.Points {
			xmax = max(xmax, p[0])
		}
	}
	if xmax == 0 {
		xmax = 1
	}
	px := func(x float64) float64 { return L + x/xmax*(W-L-R) }
	py := func(y float64) float64 { return T + (1-(y-ymin)/(1-ymin))*(H-T-B) }
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="22" font-size="15">%s</text>`+"\n", L, esc(title))
	for i := 0; i <= 5; i++ {
		y := ymin + float64(i)*(1-ymin)/5
		fmt.Fprintf(w, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%.2f</text>`+"\n", L, W-R, py(y), py(y), L-6, py(y)+4, y)
	}
	xs := map[float64]bool{}
	for _, s := range series {
		for _, p := range s.Points {
			xs[p[0]] = true
		}
	}
	var xl []float64
	for x := range xs {
		xl = append(xl, x)
	}
	sort.Float64s(xl)
	for _, x := range xl {
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", px(x), H-B+16, x)
	}
	fmt.Fprintf(w, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>`+"\n", L, W-R, H-B, H-B)
	fmt.Fprintf(w, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>`+"\n", L, L, T, H-B)
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (L+W-R)/2, H-12, esc(xlabel))
	fmt.Fprintf(w, `<text x="16" y="%.1f" transform="rotate(-90 16 %.1f)" text-anchor="middle">%s</text>`+"\n", (T+H-B)/2, (T+H-B)/2, esc(ylabel))
	for i, s := range series {
		c := palette[i%len(palette)]
		pts := ""
		for _, p := range s.Points {
			y := max(p[1], ymin)
			pts += fmt.Sprintf("%.1f,%.1f ", px(p[0]), py(y))
			fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(p[0]), py(y), c)
		}
		fmt.Fprintf(w, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", pts, c)
		fmt.Fprintf(w, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			W-R+10, W-R+30, T+16+float64(i)*18, T+16+float64(i)*18, c, W-R+35, T+20+float64(i)*18, esc(s.Name))
	}
	_, err := fmt.Fprintln(w, "</svg>")
	return err
}

func esc(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch r {
		case '<':
			out = append(out, []rune("&lt;")...)
		case '>':
			out = append(out, []rune("&gt;")...)
		case '&':
			out = append(out, []rune("&amp;")...)
		default:
			out = append(out, r)
		}
	}
	return string(out)
}
