package present

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/gwdash/gwdash/api"
)

// Plain describes an error that is not the server's answer in the user's
// words, with what to do where that is known: no "dial tcp", no
// "strconv.ParseInt", no "json: cannot unmarshal" reaches a screen or a
// terminal. An error it does not know is its own text.
func Plain(err error) string {
	if err == nil {
		return ""
	}
	var te *api.TransportError
	if errors.As(err, &te) {
		return te.Op + ": " + Plain(te.Err)
	}
	var dns *net.DNSError
	var op *net.OpError
	var cert *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var ne net.Error
	var num *strconv.NumError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var pe *fs.PathError
	switch {
	case errors.As(err, &dns):
		return "cannot find the host " + dns.Name + ": check the base URL (gwdash config show)"
	case errors.As(err, &cert), errors.As(err, &unknownCA), errors.As(err, &hostname):
		return "the server's TLS certificate is not trusted for this host: check the base URL"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing answers at " + addrOf(err) + " (connection refused): check the base URL and that the gateway runs"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection was cut before the answer ended: try again"
	case errors.As(err, &ne) && ne.Timeout():
		return "the server did not answer in time: try again, or check the network"
	case errors.As(err, &op):
		return "cannot reach " + addrOf(err) + ": check the base URL and the network"
	case errors.As(err, &num):
		return fmt.Sprintf("%q is not a %s", num.Num, numberKind(num.Func))
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON (at character %d)", syn.Offset)
	case errors.As(err, &typ):
		what := "the value"
		if typ.Field != "" {
			what = typ.Field
		}
		return fmt.Sprintf("%s must be %s, not %s", what, jsonKind(typ.Type.Kind().String()), article(typ.Value))
	case errors.As(err, &pe):
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return pe.Path + " does not exist"
		case errors.Is(err, fs.ErrPermission):
			return "no permission to use " + pe.Path
		case errors.Is(err, syscall.EISDIR):
			return pe.Path + " is a folder, not a file"
		}
		return "cannot use " + pe.Path
	}
	if strings.HasPrefix(err.Error(), "time: invalid duration") {
		return "not a duration: write it like 30s, 5m or 1h"
	}
	return err.Error()
}

func addrOf(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String()
	}
	return "the server"
}

func numberKind(fn string) string {
	switch fn {
	case "ParseInt", "ParseUint", "Atoi":
		return "whole number"
	case "ParseBool":
		return "yes/no value (on or off)"
	}
	return "number"
}

// jsonKind words a Go kind as the JSON type it is decoded from.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "true or false"
	}
	return "a number"
}

func article(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "number", "string":
		return "a " + v
	}
	return v
}
