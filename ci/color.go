package ci

// Palette colours text output for a terminal: the verdict (VIOLATION red,
// CLEAN and RECORDED green), risk tags (yellow) and exec mismatches
// (red). The zero Palette writes plain text; the CLI decides when to
// colour (--color, NO_COLOR, whether the output is a terminal).
type Palette struct{ Color bool }

// SGR codes of one length each, so a column whose every cell is painted
// (plain cells in the default colour) stays aligned under tabwriter,
// which counts the codes as text.
const (
	sgrRed     = "\x1b[31m"
	sgrGreen   = "\x1b[32m"
	sgrYellow  = "\x1b[33m"
	sgrDefault = "\x1b[39m"
	sgrReset   = "\x1b[0m"
)

func (p Palette) paint(sgr, s string) string {
	if !p.Color {
		return s
	}
	return sgr + s + sgrReset
}

// verdict paints a verdict word as shown ("VIOLATION", "CLEAN", ...).
func (p Palette) verdict(word string) string {
	switch word {
	case "VIOLATION":
		return p.paint(sgrRed, word)
	case "CLEAN", "RECORDED":
		return p.paint(sgrGreen, word)
	}
	return word
}

// risk paints a risk tag yellow, and anything else in the default colour
// so a table column keeps its alignment.
func (p Palette) risk(s string, risky bool) string {
	if risky {
		return p.paint(sgrYellow, s)
	}
	return p.paint(sgrDefault, s)
}

// alarm paints what makes a finding more than a missing baseline line
// (an exec whose program changed under it) red, as a violation is.
func (p Palette) alarm(s string) string { return p.paint(sgrRed, s) }
