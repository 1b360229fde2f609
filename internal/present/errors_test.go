package present

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
)

func TestPlainSpeaksTheUsersWords(t *testing.T) {
	_, numErr := strconv.Atoi("abc")
	_, fileErr := os.Open(filepath.Join(t.TempDir(), "gone.jsonl"))
	var v struct{ N int }
	synErr := json.Unmarshal([]byte("{oops"), &v)
	typErr := json.Unmarshal([]byte(`{"N":"x"}`), &v)
	_, dialErr := net.Dial("tcp", "127.0.0.1:1")
	for _, c := range []struct {
		err       error
		want, not string
	}{
		{numErr, `"abc" is not a whole number`, "strconv"},
		{fileErr, "gone.jsonl does not exist", "no such file"},
		{synErr, "not valid JSON (at character 2)", "invalid character"},
		{typErr, "N must be a number, not a string", "json:"},
		{&api.TransportError{Op: "GET /batches", Err: dialErr}, "GET /batches: nothing answers at 127.0.0.1:1", "dial tcp"},
		{&ReadOnlyError{What: WriteBatchDelete}, "read-only: deleting a batch is disabled", ""},
	} {
		got := Plain(c.err)
		if !strings.Contains(got, c.want) || c.not != "" && strings.Contains(got, c.not) {
			t.Errorf("Plain(%v) = %q, want %q without %q", c.err, got, c.want, c.not)
		}
	}
}
