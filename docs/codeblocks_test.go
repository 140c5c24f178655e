package docs

import "strings"

// codeBlocks returns the indented code blocks of a Markdown page, each as
// its lines with the block's indentation removed, in page order. A block
// inside a list item is indented four columns past the item's text, so
// the indentation that makes code is counted from the prose around it.
// Blank lines inside a block belong to it (an SQL script may have some).
func codeBlocks(page string) [][]string {
	var blocks [][]string
	var cur []string
	prose, base, blankBefore := 0, 0, true
	flush := func() {
		for len(cur) > 0 && cur[len(cur)-1] == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			blocks = append(blocks, cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(page, "\n") {
		if strings.TrimSpace(line) == "" {
			if cur != nil {
				cur = append(cur, "")
			}
			blankBefore = true
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if cur != nil && indent >= base || cur == nil && blankBefore && indent >= prose+4 {
			if cur == nil {
				base = prose + 4
			}
			cur = append(cur, line[base:])
			blankBefore = false
			continue
		}
		flush()
		prose = indent
		if text := line[indent:]; strings.HasPrefix(text, "- ") || strings.HasPrefix(text, "* ") {
			prose += 2 // a list item's text starts after its marker
		}
		blankBefore = false
	}
	flush()
	return blocks
}
