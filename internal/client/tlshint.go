package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// PlainToTLSError is an http:// request answered by a server that speaks TLS on that port.
type PlainToTLSError struct{ url string }

func (e *PlainToTLSError) Error() string {
	return fmt.Sprintf("%s: the server speaks TLS on this port (it answered an http:// request with 400)", e.url)
}

// tlsMismatch reads a 400 answer to a plain http:// request: Go, nginx and others say the port wants HTTPS.
func tlsMismatch(u string, resp *http.Response, body []byte) error {
	if resp.StatusCode != http.StatusBadRequest || resp.Request == nil || resp.Request.URL.Scheme != "http" {
		return nil
	}
	if !strings.Contains(strings.ToLower(string(body)), "https") {
		return nil
	}
	return &PlainToTLSError{url: u}
}

// TLSHint names the TLS problem behind err and the flag that fixes it; ok is false when err is no TLS problem.
func TLSHint(err error) (hint string, ok bool) {
	var pt *PlainToTLSError
	var rec tls.RecordHeaderError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &pt):
		return "the agent speaks TLS: use an https:// URL", true
	// net/http turns an HTTP answer to a TLS hello into an untyped error: its text is all there is to read.
	case errors.As(err, &rec), strings.Contains(errString(err), "server gave HTTP response to HTTPS client"):
		return "the agent does not speak TLS on this port: use an http:// URL (or a bare host:port)", true
	case errors.As(err, &unknown):
		return "the agent's certificate is signed by an authority this machine does not trust: pass its CA with --cacert FILE (or --insecure to skip the check)", true
	case errors.As(err, &host):
		return fmt.Sprintf("the agent's certificate is not valid for %q: use a host name the certificate names, or --insecure to skip the check", host.Host), true
	case errors.As(err, &invalid):
		if invalid.Reason == x509.Expired {
			return "the agent's certificate has expired (or is not yet valid): renew it, or check this machine's clock", true
		}
		return "the agent's certificate is not valid here: check it, or pass --cacert FILE", true
	case errors.As(err, &verify):
		return "the agent's certificate could not be verified: pass its CA with --cacert FILE", true
	// A remote TLS alert comes as an unexported type: its text is all there is to read.
	case strings.Contains(errString(err), "tls: certificate required"), strings.Contains(errString(err), "tls: bad certificate"):
		return "the agent wants a client certificate: pass --cert FILE and --key FILE", true
	}
	return "", false
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TLSProblem reports whether err is a TLS mix-up or certificate problem (exit 3, with TLSHint's hint).
func TLSProblem(err error) bool {
	_, ok := TLSHint(err)
	return ok
}
