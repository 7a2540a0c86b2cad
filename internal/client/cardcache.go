package client

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The a2a-cli specification (§10.1) says a tool SHOULD cache the Agent Card honouring HTTP caching semantics. The
// card cache is a private cache (RFC 9111) on disk, $XDG_CACHE_HOME/a2a/cards (os.UserCacheDir), one 0600 file per
// card URL and protocol version in a 0700 directory, at most maxCachedCards files (the oldest go first):
//   - a card is stored when its 200 response allows it (no no-store) and says how: a freshness lifetime (max-age,
//     else Expires) or a validator (ETag, Last-Modified);
//   - while fresh it is used without a request; once stale (or under no-cache) it is asked for again with
//     If-None-Match / If-Modified-Since, and a 304 renews it;
//   - a card of a loopback agent is always revalidated: a local agent restarts often, with another card, and asking
//     it costs nothing;
//   - only a card fetched without credentials or other service parameters is read from or written to the cache: a
//     card behind authentication is never cached;
//   - --no-card-cache (A2ACLI_NO_CARD_CACHE) bypasses the cache, neither reading nor writing it.

// A file is <hash>.card (cardfile.go): a small text header, then the card's bytes as they arrived (a signature covers
// those). The file's modification time is when the card was stored or last renewed: a 304 that changes nothing the
// cache keeps touches the file (os.Chtimes) instead of rewriting it, and only a new file trims the directory. A file
// that does not read as one (a torn write) is ignored and replaced; the .json files of earlier versions are never
// read, and go as the oldest.
const maxCachedCards = 64

// cardCache is the on-disk card cache; nil caches nothing.
type cardCache struct {
	dir string
	log *Log
	// alwaysRevalidateLoopback is the loopback rule above (off only in tests of freshness).
	alwaysRevalidateLoopback bool
}

// cachedCard is one file of the cache.
type cachedCard struct {
	URL     string
	Version string
	// Lifetime is the freshness lifetime the response gave (max-age, else Expires - Date) less the Age it arrived
	// with: how long after Stored the card stays fresh.
	Lifetime           time.Duration
	ETag, LastModified string
	Stored             time.Time // the file's modification time
	Body               []byte
	head               []byte // the header as the file holds it
}

// newCardCache is the user's card cache, or nil when there is no cache directory.
func newCardCache(log *Log) *cardCache {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		return nil
	}
	return &cardCache{dir: filepath.Join(base, "a2a", "cards"), log: log, alwaysRevalidateLoopback: true}
}

// usable reports whether a fetch of u with headers may use the cache: no credentials or service parameters.
func (c *cardCache) usable(headers http.Header) bool {
	if c == nil {
		return false
	}
	for k := range headers {
		switch http.CanonicalHeaderKey(k) {
		case "A2a-Version", "A2a-Extensions":
		default:
			return false
		}
	}
	return true
}

func (c *cardCache) file(u string, headers http.Header) string {
	sum := sha256.Sum256([]byte(headers.Get("A2A-Version") + " " + headers.Get("A2A-Extensions") + " " + u))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:16])+".card")
}

// load is the cached card of u, or nil.
func (c *cardCache) load(u string, headers http.Header) *cachedCard {
	f, err := os.Open(c.file(u, headers))
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxCardBytes+maxCacheHead {
		return nil
	}
	raw := make([]byte, st.Size())
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil
	}
	e := parseCachedCard(raw)
	if e == nil || e.URL != u {
		return nil
	}
	e.Stored = st.ModTime()
	return e
}

// directives parses Cache-Control into lower-case names and their values.
func directives(h http.Header) map[string]string {
	d := map[string]string{}
	for _, line := range h.Values("Cache-Control") {
		for _, part := range strings.Split(line, ",") {
			name, val, _ := strings.Cut(strings.TrimSpace(part), "=")
			if name != "" {
				d[strings.ToLower(name)] = strings.Trim(val, `"`)
			}
		}
	}
	return d
}

// lifetime is the freshness lifetime the response headers give (RFC 9111 §4.2.1): max-age, else Expires - Date.
func lifetime(h http.Header) time.Duration {
	d := directives(h)
	if _, ok := d["no-cache"]; ok {
		return 0
	}
	if v, ok := d["max-age"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0
		}
		return time.Duration(min(n, maxLifetime)) * time.Second
	}
	exp, err := http.ParseTime(h.Get("Expires"))
	if err != nil {
		return 0
	}
	date, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return 0
	}
	return max(exp.Sub(date), 0)
}

// freshFor is how long e stays fresh from now (<= 0: stale). A card stored in the future (a clock set back, a file
// touched by hand) is stale: asking again sets its time right.
func (e *cachedCard) freshFor(now time.Time) time.Duration {
	if e.Stored.After(now) {
		return 0
	}
	return e.Lifetime - now.Sub(e.Stored)
}

// conditional adds e's validators to a request.
func (e *cachedCard) conditional(req *http.Request) {
	if e.ETag != "" {
		req.Header.Set("If-None-Match", e.ETag)
	}
	if e.LastModified != "" {
		req.Header.Set("If-Modified-Since", e.LastModified)
	}
}

// useWithoutAsking reports whether e may be used without a request to u.
func (c *cardCache) useWithoutAsking(e *cachedCard, u string) (time.Duration, bool) {
	if c.alwaysRevalidateLoopback {
		if pu, err := url.Parse(u); err == nil && loopbackName(pu.Hostname()) {
			return 0, false
		}
	}
	left := e.freshFor(time.Now())
	return left, left > 0
}

// entry is the cache entry of body, the card of u, per the response header h; nil when h does not allow one.
func entry(u string, headers, h http.Header, body []byte) *cachedCard {
	d := directives(h)
	_, noStore := d["no-store"]
	if noStore || len(body) > maxCardBytes || (lifetime(h) <= 0 && h.Get("Etag") == "" && h.Get("Last-Modified") == "") {
		return nil
	}
	life := lifetime(h)
	if a, err := strconv.ParseInt(h.Get("Age"), 10, 64); err == nil && a > 0 {
		life -= time.Duration(min(a, maxLifetime)) * time.Second
	}
	return &cachedCard{URL: u, Version: headers.Get("A2A-Version"), Lifetime: life,
		ETag: h.Get("Etag"), LastModified: h.Get("Last-Modified"), Body: body}
}

// store keeps body, the card of u, per the response header h; a response that does not allow it is not kept (and
// drops what was kept before).
func (c *cardCache) store(u string, headers http.Header, h http.Header, body []byte) {
	name := c.file(u, headers)
	e := entry(u, headers, h, body)
	if e == nil {
		os.Remove(name) //nolint:errcheck // nothing kept
		return
	}
	c.write(name, e)
}

// renew keeps old, revalidated by a 304 whose header is h (validators it leaves out are old's). When nothing the
// cache keeps changed, the file is only touched: its time is the renewal's.
func (c *cardCache) renew(u string, headers http.Header, old *cachedCard, h http.Header) {
	name := c.file(u, headers)
	if h.Get("Etag") == "" && old.ETag != "" {
		h.Set("Etag", old.ETag)
	}
	if h.Get("Last-Modified") == "" && old.LastModified != "" {
		h.Set("Last-Modified", old.LastModified)
	}
	e := entry(u, headers, h, old.Body)
	if e == nil {
		os.Remove(name) //nolint:errcheck // nothing kept
		return
	}
	if head, ok := e.encodeHead(); ok && bytes.Equal(head, old.head) {
		now := time.Now()
		if os.Chtimes(name, now, now) == nil {
			return
		}
	}
	c.write(name, e)
}

// write replaces name with e's file (atomically: a reader sees the old file or the new one), and trims the cache
// when the file is a new one.
func (c *cardCache) write(name string, e *cachedCard) {
	head, ok := e.encodeHead()
	if !ok {
		os.Remove(name) //nolint:errcheck // a value that fits no line: not kept
		return
	}
	tmp, err := os.CreateTemp(c.dir, ".card-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(c.dir, 0o700); err != nil {
			c.log.Printf("card cache: %v", err)
			return
		}
		tmp, err = os.CreateTemp(c.dir, ".card-*")
	}
	if err != nil {
		c.log.Printf("card cache: %v", err)
		return
	}
	_, werr := tmp.Write(append(head, e.Body...))
	cerr := tmp.Close()
	_, statErr := os.Lstat(name)
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), name) != nil {
		os.Remove(tmp.Name()) //nolint:errcheck // best effort
		return
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		c.trim()
	}
}

// trim removes the oldest files past maxCachedCards.
func (c *cardCache) trim() {
	ents, err := os.ReadDir(c.dir)
	if err != nil || len(ents) <= maxCachedCards {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		if info, err := e.Info(); err == nil && !e.IsDir() {
			files = append(files, file{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for _, f := range files[:max(len(files)-maxCachedCards, 0)] {
		os.Remove(filepath.Join(c.dir, f.name)) //nolint:errcheck // best effort
	}
}
