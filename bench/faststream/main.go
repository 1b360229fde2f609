// Command faststream is a fast local server for bench/respond.sh: every
// POST /api/v1/responses is answered with a streamed answer of -bytes
// bytes of text in deltas of -delta bytes, written as fast as the
// connection takes them (internal/hostile.FastStream), so that what is
// measured is what gwdash adds to a stream, not what a gateway costs.
//
//	go run ./bench/faststream -listen 127.0.0.1:8789 -bytes 1073741824 -delta 65536
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/gwdash/gwdash/internal/hostile"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	size := flag.Int64("bytes", 1<<30, "bytes of answer text per request")
	delta := flag.Int("delta", 64<<10, "bytes of text per delta event")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening on http://%s/api/v1\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("POST /api/v1/responses", &hostile.FastStream{Bytes: *size, DeltaBytes: *delta})
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
