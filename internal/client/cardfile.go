package client

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// The form of a card cache file (cardcache.go): cacheMagic, then one "name value" line for each of cacheFields in
// that order, an empty line, and the card's bytes as they arrived. Reading it costs no JSON decoding, and comparing
// headers tells whether a 304 changed anything the cache keeps.
const (
	cacheMagic   = "a2a card cache 2\n"
	maxCacheHead = 64 << 10
)

// parseCachedCard reads a file of the cache, nil when it is not one.
func parseCachedCard(raw []byte) *cachedCard {
	rest, ok := bytes.CutPrefix(raw, []byte(cacheMagic))
	if !ok {
		return nil
	}
	e := &cachedCard{}
	for _, name := range cacheFields {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil
		}
		k, v, _ := strings.Cut(string(line), " ")
		if k != name {
			return nil
		}
		switch name {
		case "url":
			e.URL = v
		case "version":
			e.Version = v
		case "lifetime":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n > maxLifetime || n < -maxLifetime {
				return nil
			}
			e.Lifetime = time.Duration(n) * time.Second
		case "etag":
			e.ETag = v
		case "last-modified":
			e.LastModified = v
		}
		rest = after
	}
	body, ok := bytes.CutPrefix(rest, []byte("\n"))
	if !ok || len(body) == 0 || len(body) > maxCardBytes {
		return nil
	}
	e.head, e.Body = raw[:len(raw)-len(body)], body
	return e
}

// cacheFields are the names of a file's header lines, in their order.
var cacheFields = []string{"url", "version", "lifetime", "etag", "last-modified"}

// maxLifetime bounds a lifetime, in seconds: a year (a longer max-age counts as a year).
const maxLifetime = 365 * 24 * 3600

// encodeHead is the header of e's file; ok is false when a value would not fit on its line.
func (e *cachedCard) encodeHead() ([]byte, bool) {
	vals := []string{e.URL, e.Version, strconv.FormatInt(int64(e.Lifetime/time.Second), 10), e.ETag, e.LastModified}
	b := make([]byte, 0, 256)
	b = append(b, cacheMagic...)
	for i, name := range cacheFields {
		if strings.ContainsAny(vals[i], "\r\n") {
			return nil, false
		}
		b = append(append(append(append(b, name...), ' '), vals[i]...), '\n')
	}
	return append(b, '\n'), true
}
