package transcript

import (
	"strings"
	"testing"
)

// Blocks end at blank lines outside a fence; a block never grows past
// maxBlock; the chunks hold the text whole.
func TestDocBlocksAndChunks(t *testing.T) {
	d := New(true, 40)
	d.Append("# Title\n\nfirst para")
	d.Append("graph\n\n```go\nx := 1\n\ny := 2\n```\n\nlast")
	if d.Blocks() != 3 || d.Tail() != "last" {
		t.Fatalf("blocks %d tail %q", d.Blocks(), d.Tail())
	}
	if b := d.Block(2); !strings.Contains(d.Slice(b.Start, b.End), "x := 1\n\ny := 2") {
		t.Fatalf("a fence keeps its blank lines in one block: %q", d.Slice(b.Start, b.End))
	}
	big := New(true, 80)
	line := strings.Repeat("word ", 1000)
	for big.Size() < 3*chunkSize {
		big.Append(line)
	}
	for i := range big.Blocks() {
		if b := big.Block(i); b.End-b.Start > maxBlock {
			t.Fatalf("block %d is %d bytes", i, b.End-b.Start)
		}
	}
	if int64(len(big.Text())) != big.Size() || int64(len(big.chunks)) != (big.Size()+chunkSize-1)/chunkSize {
		t.Fatalf("text %d of %d in %d chunks", len(big.Text()), big.Size(), len(big.chunks))
	}
}

// A stored render replaces the block's estimate in the height; a resize
// asks for the render again (and keeps the plain lines meanwhile); a block
// cut inside a fence never asks for one.
func TestDocStoreNeedsResize(t *testing.T) {
	d := New(true, 40)
	d.Append("one\n\ntwo\n\n```\n" + strings.Repeat("code line\n", maxBlock/10+10))
	d.Finish()
	if d.Blocks() < 3 || !d.Block(d.Blocks()-1).Plain || d.Needs(d.Blocks()-1) {
		t.Fatalf("%d blocks; the last, cut in a fence, is plain and needs no render", d.Blocks())
	}
	before := d.Height()
	if !d.Needs(0) {
		t.Fatal("a new block needs a render")
	}
	d.Store(0, 40, []string{"a", "b", "c"})
	if d.Needs(0) || d.Height() != before+2 || strings.Join(d.BlockLines(0), "|") != "a|b|c" {
		t.Fatalf("stored: needs %v, height %d (was %d), lines %q", d.Needs(0), d.Height(), before, d.BlockLines(0))
	}
	d.Store(1, 39, []string{"x"}) // for another width: dropped
	if !d.Needs(1) {
		t.Fatal("a render for another width was kept")
	}
	d.Resize(60)
	if !d.Needs(0) || d.Width() != 60 || d.BlockLines(0)[0] != "  one" {
		t.Fatalf("after a resize: needs %v, width %d, lines %q", d.Needs(0), d.Width(), d.BlockLines(0))
	}
	d.Resize(40)
	if d.Needs(0) || d.Height() != before+2 {
		t.Fatalf("back at the stored width: needs %v, height %d", d.Needs(0), d.Height())
	}
}
