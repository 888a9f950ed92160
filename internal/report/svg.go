package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"unicode/utf8"
)

// Plot geometry (pixels).
const (
	plotW, plotH           = 520.0, 250.0
	padL, padR, padT, padB = 56.0, 110.0, 28.0, 48.0
	maxBarLabels           = 24
	// labelCharW is the width allowed per character of an x-axis label
	// (sans-serif at fontSize: digits and lower-case letters are about
	// 0.55-0.6 em) and labelGap the space kept between two labels.
	labelCharW, labelGap           = 0.62 * fontSize, 6.0
	fontSize                       = 12
	colorStored, colorDup, colorEr = "#2ca02c", "#ff7f0e", "#d62728"
	colorGone                      = "#7f7f7f"
)

var palette = []string{colorStored, colorDup, colorEr, "#1f77b4", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

// series is one line of a line plot: y values at the shared x positions.
type series struct {
	Name  string
	Color string
	Y     []float64
}

func esc(s string) string { return template.HTMLEscapeString(s) }

func svgOpen(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" font-family="sans-serif" font-size="%d" role="img"><title>%s</title>`,
		plotW, plotH, plotW, plotH, fontSize, esc(title))
	fmt.Fprintf(b, `<rect width="%.0f" height="%.0f" fill="#fff"/><text x="%.0f" y="18" font-size="14" font-weight="600">%s</text>`, plotW, plotH, padL, esc(title))
}

// axisTop returns the top of a count axis and its tick step: the step is
// 1, 2 or 5 times a power of ten (at least 1, counts are integers), about a
// quarter of v, and the top a multiple of it.
func axisTop(v float64) (top, step float64) {
	if v <= 0 {
		return 1, 1
	}
	raw := v / 4
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * p
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	step = max(step, 1)
	return math.Ceil(v/step) * step, step
}

func yAxis(b *strings.Builder, ymax, step float64, py func(float64) float64) {
	for y := 0.0; y <= ymax+step/2; y += step {
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#e4e4e4"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`,
			padL, plotW-padR, py(y), py(y), padL-6, py(y)+4, trimFloat(y))
	}
}

func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// linePlot draws series over categorical x positions labelled xs.
func linePlot(title, xlabel string, xs []string, ss []series) template.HTML {
	var b strings.Builder
	svgOpen(&b, title)
	ymax := 0.0
	for _, s := range ss {
		for _, y := range s.Y {
			ymax = max(ymax, y)
		}
	}
	ymax, ystep := axisTop(ymax)
	n := len(xs)
	px := func(i int) float64 {
		if n <= 1 {
			return (padL + plotW - padR) / 2
		}
		return padL + float64(i)/float64(n-1)*(plotW-padL-padR)
	}
	py := func(y float64) float64 { return padT + (1-y/ymax)*(plotH-padT-padB) }
	yAxis(&b, ymax, ystep, py)
	step := max(1, (n+maxBarLabels/2-1)/(maxBarLabels/2))
	if n > 1 {
		step = max(step, labelStep(xs, (plotW-padL-padR)/float64(n-1)))
	}
	for i, x := range xs {
		if i%step == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, px(i), plotH-padB+16, esc(x))
		}
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, (padL+plotW-padR)/2, plotH-8, esc(xlabel))
	for k, s := range ss {
		var pts []string
		for i, y := range s.Y {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(i), py(y)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, s.Color, strings.Join(pts, " "))
		for i, y := range s.Y {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s</title></circle>`, px(i), py(y), s.Color, esc(s.Name), trimFloat(y))
		}
		ly := padT + 16*float64(k)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/><text x="%.1f" y="%.1f">%s</text>`,
			plotW-padR+10, plotW-padR+28, ly, ly, s.Color, plotW-padR+32, ly+4, esc(s.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text above is escaped with esc
}

// bar is one bar of a bar chart.
type bar struct {
	Label string
	N     int
}

// marker is a vertical line drawn between bars, e.g. a threshold; At is in
// bar units (0 = left edge of the first bar).
type marker struct {
	At    float64
	Label string
}

// barChart draws counts as bars, with optional markers.
func barChart(title, xlabel string, bars []bar, color string, marks ...marker) template.HTML {
	var b strings.Builder
	svgOpen(&b, title)
	ymax := 0
	for _, x := range bars {
		ymax = max(ymax, x.N)
	}
	top, ystep := axisTop(float64(ymax))
	n := max(len(bars), 1)
	w := (plotW - padL - padR) / float64(n)
	py := func(y float64) float64 { return padT + (1-y/top)*(plotH-padT-padB) }
	yAxis(&b, top, ystep, py)
	labels := make([]string, len(bars))
	for i, x := range bars {
		labels[i] = x.Label
	}
	step := max((n+maxBarLabels-1)/maxBarLabels, labelStep(labels, w))
	for i, x := range bars {
		x0 := padL + float64(i)*w
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %d</title></rect>`,
			x0+1, py(float64(x.N)), max(w-2, 1), py(0)-py(float64(x.N)), color, esc(x.Label), x.N)
		if i%step == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x0+w/2, plotH-padB+16, esc(x.Label))
		}
	}
	for _, m := range marks {
		x := padL + m.At*w
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#000" stroke-dasharray="5,3" stroke-width="1.5"/><text x="%.1f" y="%.1f">%s</text>`,
			x, x, padT, plotH-padB, x+4, padT+12, esc(m.Label))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, (padL+plotW-padR)/2, plotH-8, esc(xlabel))
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text above is escaped with esc
}

// labelStep is every how many slots of width w an x-axis label is drawn
// so that the widest label (labelCharW per character) keeps labelGap from
// the next: 20 Jaccard bins of 17.7 px cannot each carry "0.05".
func labelStep(labels []string, w float64) int {
	widest := 0
	for _, l := range labels {
		widest = max(widest, utf8.RuneCountInString(l))
	}
	return max(1, int(math.Ceil((float64(widest)*labelCharW+labelGap)/w)))
}
