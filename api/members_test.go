package api

import (
	"strings"
	"testing"
)

func TestCheckMembers(t *testing.T) {
	many := `{` + strings.Repeat(`"a":1,`, 0)
	for i := 0; i < 40; i++ {
		many += `"m` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1,`
	}
	for in, dup := range map[string]bool{
		`{"status":"a","Status":"b"}`:                            true,
		`{"status":"a","ſtatus":"b"}`:                            true,
		`{"status":"a","st\u0061tus":"b"}`:                       true,
		`{"kind":"a","\u212aind":"b"}`:                           true,
		`{"status":"a","status":"b"}`:                            true,
		`{"a":{"status":1},"b":{"status":2},"status":3}`:         false,
		`[{"status":1},{"status":2}]`:                            false,
		`{"s":"x\"status\":1,","status":"\\","t":"\\\""}`:        false,
		`{"a":[{"x":1,"x":2}]}`:                                  true,
		`{"a":"{\"x\":1,\"x\":2}"}`:                              false,
		many + `"mab":2}`:                                        true,
		many + `"new":2}`:                                        false,
		`{"data":[{"id":"a","object":"x"},{"id":"b"}],"id":"c"}`: false,
	} {
		err := checkMembers([]byte(in))
		if (err != nil) != dup {
			t.Errorf("%s: %v", in, err)
		}
	}
}
