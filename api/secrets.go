package api

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// maskSecrets masks, in a destination answer (one destination, a page, a
// patch echoed back), every string under a config member whose name looks
// secret (IsSecretMember) that the server sent in clear: gwdash masks it
// itself (MaskSecret), before anything decodes, shows, prints or stores
// it, so that a server that echoes a secret never gets it onto a screen,
// into --json output or into the local record. Members are kept in the
// order sent; an answer without a clear secret is returned as it is.
func maskSecrets(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`"config"`)) {
		return raw
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	type frame struct {
		object, secrets bool // an object; inside a config
		wantName        bool
		name            string
	}
	var stack []frame
	changed := false
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			break // the end, or a body the decoder will refuse anyway
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = &stack[n-1]
		}
		switch k := tok.Kind(); {
		case k == '{' || k == '[':
			inside := top != nil && (top.secrets || top.object && top.name == "config")
			if top != nil && top.object {
				top.wantName = true
			}
			stack = append(stack, frame{object: k == '{', secrets: inside, wantName: k == '{'})
		case k == '}' || k == ']':
			stack = stack[:max(0, len(stack)-1)]
		case top != nil && top.object && !top.wantName && k != '"':
			top.wantName = true
		case top != nil && top.object && top.wantName && k == '"':
			top.name, top.wantName = tok.String(), false
		case top != nil && top.object && k == '"':
			top.wantName = true
			if v := tok.String(); top.secrets && IsSecretMember(top.name) && v != "" && !IsMasked(v) {
				tok, changed = jsontext.String(MaskSecret(v)), true
			}
		}
		if err := enc.WriteToken(tok); err != nil {
			return raw
		}
	}
	if !changed {
		return raw
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}

// secretRoute reports whether a path's answers carry destination configs.
func secretRoute(path string) bool {
	return strings.HasPrefix(path, "/observability/destinations")
}
