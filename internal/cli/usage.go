package cli

import (
	"bytes"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Help and usage are cobra's default text, written here rather than by cobra: its usage builds the command's
// local and inherited flag sets anew four times over (a FlagSet each, every flag added to a map) and formats each
// flag line with fmt, and the usage without "Global Flags" (version, completion) was a text/template parsed on
// every use. This writes the same bytes from the flags as they are, into one buffer, in one write.
// TestUsageIsCobras holds it to cobra's own rendering for every command of the tree; BenchmarkUsage measures it.

// setUsage makes root's help and usage (and its commands', which inherit them) this file's.
func setUsage(root *cobra.Command) {
	root.SetHelpFunc(writeHelp)
	root.SetUsageFunc(usageFunc(true))
}

// noGlobals drops the "Global Flags" section from c's usage (and its subcommands'): they ignore those flags.
func noGlobals(c *cobra.Command) { c.SetUsageFunc(usageFunc(false)) }

// writeHelp is cobra's default help: the long description (else the short one), then the usage.
func writeHelp(c *cobra.Command, _ []string) {
	text := c.Long
	if text == "" {
		text = c.Short
	}
	text = strings.TrimRightFunc(text, unicode.IsSpace)
	var usage string
	if c.Runnable() || c.HasSubCommands() {
		usage = c.UsageString() // c's usage function: version's is its own
	}
	var b bytes.Buffer
	b.Grow(len(text) + 2 + len(usage))
	if text != "" {
		b.WriteString(text)
		b.WriteString("\n\n")
	}
	b.WriteString(usage)
	_, _ = c.OutOrStdout().Write(b.Bytes()) // as cobra's: help has no error to return
}

// usageFunc is cobra's default usage, with or without the inherited flags.
func usageFunc(globals bool) func(*cobra.Command) error {
	return func(c *cobra.Command) error {
		var b bytes.Buffer
		writeUsage(&b, c, globals)
		_, _ = c.OutOrStderr().Write(b.Bytes()) // cobra's ignores a failed write too
		return nil
	}
}

// writeUsage writes what cobra's default usage template does for c.
func writeUsage(b *bytes.Buffer, c *cobra.Command, globals bool) {
	local, inherited := usageFlags(c)
	size := 256 + len(c.Example)
	for _, l := range [][]*pflag.Flag{local, inherited} {
		for _, fl := range l {
			size += 48 + len(fl.Name) + len(fl.Usage) + len(fl.DefValue)
		}
	}
	for _, sub := range c.Commands() {
		size += 24 + len(sub.Short)
	}
	b.Grow(size)
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n  ")
		b.WriteString(useLine(c, available(local) || available(inherited)))
	}
	subs := c.HasAvailableSubCommands()
	if subs {
		b.WriteString("\n  ")
		b.WriteString(c.CommandPath())
		b.WriteString(" [command]")
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\n\nAliases:\n  ")
		b.WriteString(c.NameAndAliases())
	}
	if c.HasExample() {
		b.WriteString("\n\nExamples:\n")
		b.WriteString(c.Example)
	}
	if subs {
		cmds := c.Commands()
		list := func(group string, all bool) {
			for _, sub := range cmds {
				if (all || sub.GroupID == group) && (sub.IsAvailableCommand() || sub.Name() == "help") {
					b.WriteString("\n  ")
					pad(b, sub.Name(), sub.NamePadding())
					b.WriteByte(' ')
					b.WriteString(sub.Short)
				}
			}
		}
		if len(c.Groups()) == 0 {
			b.WriteString("\n\nAvailable Commands:")
			list("", true)
		} else {
			for _, g := range c.Groups() {
				b.WriteString("\n\n")
				b.WriteString(g.Title)
				list(g.ID, false)
			}
			if !c.AllChildCommandsHaveGroup() {
				b.WriteString("\n\nAdditional Commands:")
				list("", false)
			}
		}
	}
	if available(local) {
		b.WriteString("\n\nFlags:\n")
		writeFlags(b, local)
	}
	if globals && available(inherited) {
		b.WriteString("\n\nGlobal Flags:\n")
		writeFlags(b, inherited)
	}
	if c.HasHelpSubCommands() {
		b.WriteString("\n\nAdditional help topics:")
		for _, sub := range c.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				b.WriteString("\n  ")
				pad(b, sub.CommandPath(), sub.CommandPathPadding())
				b.WriteByte(' ')
				b.WriteString(sub.Short)
			}
		}
	}
	if subs {
		b.WriteString("\n\nUse \"")
		b.WriteString(c.CommandPath())
		b.WriteString(" [command] --help\" for more information about a command.")
	}
	b.WriteByte('\n')
}

// useLine is cobra's UseLine as it reads once the persistent flags are merged into c's (cobra's usage merges
// them first; hasFlags is whether any of them is shown).
func useLine(c *cobra.Command, hasFlags bool) string {
	use := c.Use
	if name, shown := c.Name(), c.DisplayName(); name != shown {
		use = strings.Replace(use, name, shown, 1)
	}
	if c.HasParent() {
		use = c.Parent().CommandPath() + " " + use
	}
	if !c.DisableFlagsInUseLine && hasFlags && !strings.Contains(use, "[flags]") {
		use += " [flags]"
	}
	return use
}

// usageFlags are c's flags as cobra's LocalFlags and InheritedFlags list them, sorted by name: its own (those of
// Flags and PersistentFlags that are not a parent's persistent flag: cobra merges those into Flags), and its
// parents' persistent flags that none of its own shadows, the nearest parent's of a name. A command whose flags keep
// their order of definition gets cobra's lists as they are.
func usageFlags(c *cobra.Command) (local, inherited []*pflag.Flag) {
	if !c.Flags().SortFlags || !c.PersistentFlags().SortFlags || c.GlobalNormalizationFunc() != nil {
		return flagList(c.LocalFlags()), flagList(c.InheritedFlags())
	}
	// nearest is the persistent flag of that name of c's nearest parent having one, below (nearer than) stop.
	nearest := func(name string, stop *cobra.Command) *pflag.Flag {
		for p := c.Parent(); p != stop; p = p.Parent() {
			if fl := p.PersistentFlags().Lookup(name); fl != nil {
				return fl
			}
		}
		return nil
	}
	fs, pfs := c.Flags(), c.PersistentFlags()
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl != nearest(fl.Name, nil) {
			local = append(local, fl)
		}
	})
	n := len(local)
	pfs.VisitAll(func(fl *pflag.Flag) {
		if x := fs.Lookup(fl.Name); x == nil || x == nearest(fl.Name, nil) {
			local = append(local, fl)
		}
	})
	if n > 0 && len(local) > n {
		slices.SortFunc(local, byName)
	}
	sources := 0
	for p := c.Parent(); p != nil; p = p.Parent() {
		m := len(inherited)
		p.PersistentFlags().VisitAll(func(fl *pflag.Flag) {
			if nearest(fl.Name, p) != nil || pfs.Lookup(fl.Name) != nil {
				return // a nearer parent's, or c's own
			}
			if x := fs.Lookup(fl.Name); x != nil && x != fl {
				return // c's own
			}
			inherited = append(inherited, fl)
		})
		if len(inherited) > m {
			sources++
		}
	}
	if sources > 1 {
		slices.SortFunc(inherited, byName)
	}
	return local, inherited
}

func byName(a, b *pflag.Flag) int { return strings.Compare(a.Name, b.Name) }

func flagList(fs *pflag.FlagSet) []*pflag.Flag {
	var l []*pflag.Flag
	fs.VisitAll(func(fl *pflag.Flag) { l = append(l, fl) })
	return l
}

// available is pflag's HasAvailableFlags: one of flags is not hidden.
func available(flags []*pflag.Flag) bool {
	for _, fl := range flags {
		if !fl.Hidden {
			return true
		}
	}
	return false
}

// writeFlags writes pflag's FlagUsages of flags (no wrapping), less the trailing white space, as cobra's template
// trims it: a column of flags with their value names, padded to the longest and one, then each usage and
// non-zero default.
func writeFlags(b *bytes.Buffer, flags []*pflag.Flag) {
	type row struct {
		fl          *pflag.Flag
		name, usage string
		noOpt       bool // the optional value is shown: [=VALUE]
		head        int  // the length of the flag's column
	}
	rows := make([]row, 0, len(flags))
	width := 0
	for _, fl := range flags {
		if fl.Hidden {
			continue
		}
		r := row{fl: fl, head: 8 + len(fl.Name)} // "      --name" or "  -n, --name"
		if fl.Shorthand != "" && fl.ShorthandDeprecated == "" {
			r.head += len(fl.Shorthand) - 1
		}
		r.name, r.usage = pflag.UnquoteUsage(fl)
		if r.name != "" {
			r.head += 1 + len(r.name)
		}
		if fl.NoOptDefVal != "" {
			switch fl.Value.Type() {
			case "string":
				r.noOpt, r.head = true, r.head+len(fl.NoOptDefVal)+5 // [="VALUE"]
			case "bool", "boolfunc":
				r.noOpt = fl.NoOptDefVal != "true"
			case "count":
				r.noOpt = fl.NoOptDefVal != "+1"
			default:
				r.noOpt = true
			}
			if r.noOpt && fl.Value.Type() != "string" {
				r.head += len(fl.NoOptDefVal) + 3 // [=VALUE]
			}
		}
		width = max(width, r.head+1)
		rows = append(rows, r)
	}
	start := b.Len()
	for _, r := range rows {
		fl := r.fl
		if fl.Shorthand != "" && fl.ShorthandDeprecated == "" {
			b.WriteString("  -")
			b.WriteString(fl.Shorthand)
			b.WriteString(", --")
		} else {
			b.WriteString("      --")
		}
		b.WriteString(fl.Name)
		if r.name != "" {
			b.WriteByte(' ')
			b.WriteString(r.name)
		}
		if r.noOpt {
			if fl.Value.Type() == "string" {
				b.WriteString(`[="`)
				b.WriteString(fl.NoOptDefVal)
				b.WriteString(`"]`)
			} else {
				b.WriteString("[=")
				b.WriteString(fl.NoOptDefVal)
				b.WriteByte(']')
			}
		}
		spaces(b, width-r.head+2)
		writeIndented(b, r.usage, width+2) // a usage of several lines goes on under its first line's start
		if !defaultIsZero(fl) {
			b.WriteString(" (default ")
			if fl.Value.Type() == "string" {
				b.WriteString(strconv.Quote(fl.DefValue))
			} else {
				writeIndented(b, fl.DefValue, width+2)
			}
			b.WriteByte(')')
		}
		if fl.Deprecated != "" {
			b.WriteString(" (DEPRECATED: ")
			writeIndented(b, fl.Deprecated, width+2)
			b.WriteByte(')')
		}
		b.WriteByte('\n')
	}
	b.Truncate(start + len(bytes.TrimRightFunc(b.Bytes()[start:], unicode.IsSpace)))
}

// writeIndented writes s, each line after the first indented by n spaces.
func writeIndented(b *bytes.Buffer, s string, n int) {
	for {
		line, rest, more := strings.Cut(s, "\n")
		b.WriteString(line)
		if !more {
			return
		}
		b.WriteByte('\n')
		spaces(b, n)
		s = rest
	}
}

// defaultIsZero is pflag's test of whether fl's default is its type's zero value, which the usage leaves unsaid.
func defaultIsZero(fl *pflag.Flag) bool {
	if _, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok {
		return fl.DefValue == "false" || fl.DefValue == ""
	}
	switch reflect.TypeOf(fl.Value).String() {
	case "*pflag.durationValue":
		return fl.DefValue == "0" || fl.DefValue == "0s"
	case "*pflag.intValue", "*pflag.int8Value", "*pflag.int32Value", "*pflag.int64Value", "*pflag.uintValue",
		"*pflag.uint8Value", "*pflag.uint16Value", "*pflag.uint32Value", "*pflag.uint64Value", "*pflag.countValue",
		"*pflag.float32Value", "*pflag.float64Value":
		return fl.DefValue == "0"
	case "*pflag.stringValue":
		return fl.DefValue == ""
	case "*pflag.ipValue", "*pflag.ipMaskValue", "*pflag.ipNetValue":
		return fl.DefValue == "<nil>"
	case "*pflag.intSliceValue", "*pflag.stringSliceValue", "*pflag.stringArrayValue":
		return fl.DefValue == "[]"
	}
	switch fl.DefValue {
	case "false", "<nil>", "", "0":
		return true
	}
	return false
}

// pad writes s left-aligned in a field of n characters, as fmt's %-*s.
func pad(b *bytes.Buffer, s string, n int) {
	b.WriteString(s)
	spaces(b, n-utf8.RuneCountInString(s))
}

func spaces(b *bytes.Buffer, n int) {
	const blank = "                                                                "
	for ; n > len(blank); n -= len(blank) {
		b.WriteString(blank)
	}
	if n > 0 {
		b.WriteString(blank[:n])
	}
}
