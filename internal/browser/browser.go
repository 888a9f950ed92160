// Package browser gives tests a real browser: headless Chromium (Debian's
// "chromium" package; CJK text needs "fonts-noto-cjk") driven over the
// DevTools protocol with github.com/chromedp/chromedp, and a place for the
// screenshots the tests save as artefacts.
//
// Like net/http/httptest it imports "testing": it is for tests only. When
// no Chromium is installed the test is skipped with a message saying what
// to install, except when the environment variable CI is set, where that is
// a failure (CI installs it).
package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Environment variables.
const (
	// EnvChromium names the browser binary (default: chromium or
	// chromium-browser on PATH).
	EnvChromium = "CHROMIUM"
	// EnvArtifacts is the directory screenshots are saved in (default:
	// newscrawl-artifacts under the system temporary directory).
	EnvArtifacts = "NEWSCRAWL_ARTIFACTS"
	// EnvCI: when set, a missing browser fails the test.
	EnvCI = "CI"
)

// Timeout bounds one test's browser session: the machine may be loaded.
const Timeout = 2 * time.Minute

// Width and Height are the window size; screenshots are this size.
const Width, Height = 1100, 760

// Path returns the Chromium binary, or "" when none is found.
func Path() string {
	if p := os.Getenv(EnvChromium); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Session is a browser tab of a test.
type Session struct {
	Ctx context.Context

	mu      sync.Mutex
	dialogs []string // JavaScript dialogs that opened (alert, confirm, prompt)
}

// Start launches a fresh headless Chromium (its own user data directory,
// no network services of its own) and returns a tab. The browser stops when
// the test ends.
func Start(t testing.TB) *Session {
	t.Helper()
	path := Path()
	if path == "" {
		msg := "no Chromium found (apt-get install -y chromium fonts-noto-cjk, or set " + EnvChromium + ")"
		if os.Getenv(EnvCI) != "" {
			t.Fatal(msg + "; CI is set, so this is a failure")
		}
		t.Skip(msg)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(Width, Height),
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), Timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	s := &Session{Ctx: tab}
	if err := chromedp.Listen(tab, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			s.mu.Lock()
			s.dialogs = append(s.dialogs, string(d.Type)+": "+d.Message)
			s.mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return s
}

// Dialogs returns the JavaScript dialogs that opened so far.
func (s *Session) Dialogs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.dialogs...)
}

// Screenshot captures the viewport as PNG and saves it as an artefact
// named name.png; it returns the image and the file's path.
func (s *Session) Screenshot(t testing.TB, name string) ([]byte, string) {
	t.Helper()
	png, err := chromedp.Run(s.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := ArtifactDir(t)
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
	return png, p
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// ArtifactDir returns (and creates) the directory of the test's artefacts.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	root := os.Getenv(EnvArtifacts)
	if root == "" {
		root = filepath.Join(os.TempDir(), "newscrawl-artifacts")
	}
	dir := filepath.Join(root, unsafeName.ReplaceAllString(t.Name(), "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
