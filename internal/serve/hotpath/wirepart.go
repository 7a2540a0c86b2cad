package hotpath

import (
	"encoding/base64"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// appendStrings writes an omitempty []string field, key included.
func appendStrings(b []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(b, key...)
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendMetadata writes an omitempty metadata field, comma and key included.
func appendMetadata(b []byte, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return b, nil
	}
	b = append(b, `,"metadata":`...)
	return appendMarshal(b, m)
}

func appendParts(b []byte, parts a2a.ContentParts) ([]byte, error) {
	if parts == nil {
		return append(b, "null"...), nil
	}
	var err error
	b = append(b, '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendPart(b, p); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendPart flattens the part's content into the object as Part.MarshalJSON does.
func appendPart(b []byte, p *a2a.Part) ([]byte, error) {
	if p == nil {
		return append(b, "null"...), nil
	}
	start := len(b)
	b = append(b, '{')
	switch c := p.Content.(type) {
	case a2a.Text:
		b = append(b, `"text":`...)
		b = appendString(b, string(c))
	case a2a.Raw:
		b = append(b, `"raw":`...)
		if c == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '"')
			b = base64.StdEncoding.AppendEncode(b, c)
			b = append(b, '"')
		}
	case a2a.Data:
		b = append(b, `"data":`...)
		var err error
		if b, err = appendMarshal(b, c.Value); err != nil {
			return b, err
		}
	case a2a.URL:
		if c != "" {
			b = append(b, `"url":`...)
			b = appendString(b, string(c))
		}
	case nil:
	default:
		return appendMarshal(b[:start], p)
	}
	if p.Filename != "" {
		b = appendComma(b, start)
		b = append(b, `"filename":`...)
		b = appendString(b, p.Filename)
	}
	if p.MediaType != "" {
		b = appendComma(b, start)
		b = append(b, `"mediaType":`...)
		b = appendString(b, p.MediaType)
	}
	if len(p.Metadata) > 0 {
		b = appendComma(b, start)
		b = append(b, `"metadata":`...)
		var err error
		if b, err = appendMarshal(b, p.Metadata); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendComma separates a field from the previous one of the object opened at start.
func appendComma(b []byte, start int) []byte {
	if len(b) > start+1 {
		b = append(b, ',')
	}
	return b
}
