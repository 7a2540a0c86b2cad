// Package docs holds the tests that keep the written plan true to the code: STYLE.md's table of who imports whom,
// the sections of the contract the code cites, the documents' links, code named for what it does rather than for
// the issue that asked for it, and doc comments that name what they document. It has no code of its own.
package docs

import (
	"bufio"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

const module = "github.com/a2acli/a2a/"

// thirdParty maps the short names STYLE.md gives other modules to their import path prefixes.
var thirdParty = map[string][]string{
	"a2a-go":       {"github.com/a2aproject/a2a-go/"},
	"grpc":         {"google.golang.org/grpc"},
	"protobuf":     {"google.golang.org/protobuf/"},
	"genproto":     {"google.golang.org/genproto/"},
	"cobra":        {"github.com/spf13/cobra"},
	"pflag":        {"github.com/spf13/pflag"},
	"x/term":       {"golang.org/x/term"},
	"x/sys":        {"golang.org/x/sys/"},
	"lipgloss":     {"github.com/charmbracelet/lipgloss"},
	"x/ansi":       {"github.com/charmbracelet/x/ansi"},
	"termenv":      {"github.com/muesli/termenv"},
	"runewidth":    {"github.com/mattn/go-runewidth"},
	"uniseg":       {"github.com/rivo/uniseg"},
	"pretty":       {"github.com/tidwall/pretty"},
	"timefmt":      {"github.com/itchyny/timefmt-go"},
	"pgx":          {"github.com/jackc/pgx/"},
	"sqlite":       {"github.com/ncruces/go-sqlite3"},
	"testscript":   {"github.com/rogpeppe/go-internal/"},
	"pty":          {"github.com/creack/pty"},
	"chromedp":     {"github.com/chromedp/"},
	"go-cmp":       {"github.com/google/go-cmp/"},
	"prometheus":   {"github.com/prometheus/"},
	"jsonschema":   {"github.com/santhosh-tekuri/jsonschema/"},
	"hdrhistogram": {"github.com/HdrHistogram/hdrhistogram-go"},
	"mcp-sdk":      {"github.com/modelcontextprotocol/go-sdk/"},
	"x/oauth2":     {"golang.org/x/oauth2"},
	"go-jose":      {"github.com/go-jose/go-jose/"},
	"go-keyring":   {"github.com/zalando/go-keyring"},
	"godbus":       {"github.com/godbus/dbus/"},
	"jwx":          {"github.com/lestrrat-go/jwx/"},
	"yaml":         {"go.yaml.in/yaml/", "gopkg.in/yaml."},
	"x/text":       {"golang.org/x/text/"},
	"x/net":        {"golang.org/x/net/"},
}

// styleRow is one package's row of STYLE.md's table.
type styleRow struct {
	owns, imports string
}

// styleTable reads STYLE.md's table: package → row.
func styleTable(t *testing.T) map[string]styleRow {
	t.Helper()
	b, err := os.ReadFile("STYLE.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]styleRow{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := splitRow(line)
		if len(cells) != 3 {
			t.Fatalf("STYLE.md: a row of %d cells, want 3 (package, owns, imports): %s", len(cells), line)
		}
		name := strings.Trim(cells[0], "`")
		if _, dup := rows[name]; dup {
			t.Errorf("STYLE.md: two rows for %s", name)
		}
		rows[name] = styleRow{owns: cells[1], imports: cells[2]}
	}
	return rows
}

// splitRow splits a Markdown table row on the bars outside backquotes.
func splitRow(line string) []string {
	var cells []string
	var cur strings.Builder
	inCode := false
	for _, r := range strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|") {
		switch {
		case r == '`':
			inCode = !inCode
		case r == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// goPackages returns the repository's packages (directory relative to the root → package), as the go tool sees
// them on this system.
func goPackages(t *testing.T) map[string]*build.Package {
	t.Helper()
	pkgs := map[string]*build.Package{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); path != ".." && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != ".." {
			return filepath.SkipDir // another module (third_party's patched copies): not this module's packages
		}
		p, err := build.Default.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel("..", path)
		pkgs[filepath.ToSlash(rel)] = p
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// TestImportsFollowStyle holds STYLE.md's table to the code: every package has a row; a row names exactly the
// packages of this repository it imports, and every other module it imports. A package of tests only (no code of
// its own, like e2e) is held to its tests' imports; one "imported only from tests" is imported by no package's code.
func TestImportsFollowStyle(t *testing.T) {
	rows := styleTable(t)
	pkgs := goPackages(t)
	if len(pkgs) < 40 {
		t.Fatalf("found only %d packages: is the walk still right?", len(pkgs))
	}
	for dir := range rows {
		if pkgs[dir] == nil {
			t.Errorf("STYLE.md has a row for %s, which is no package", dir)
		}
	}
	resolve := func(name string) string {
		for _, d := range []string{name, "internal/" + name} {
			if pkgs[d] != nil {
				return d
			}
		}
		return ""
	}
	dirs := slices.Sorted(func(yield func(string) bool) {
		for d := range pkgs {
			if !yield(d) {
				return
			}
		}
	})
	testOnly := map[string]bool{}
	for _, dir := range dirs {
		if strings.Contains(rows[dir].owns, "imported only from tests") {
			testOnly[dir] = true
		}
	}
	for _, dir := range dirs {
		p := pkgs[dir]
		row, ok := rows[dir]
		if !ok {
			t.Errorf("STYLE.md has no row for %s: say what it owns and what it imports", dir)
			continue
		}
		imports := p.Imports
		if len(p.GoFiles) == 0 {
			imports = append(slices.Clone(p.TestImports), p.XTestImports...)
		}
		got := map[string]bool{}
		var foreign []string
		for _, imp := range imports {
			switch {
			case strings.HasPrefix(imp, module):
				if d := strings.TrimPrefix(imp, module); d != dir {
					got[d] = true
					if testOnly[d] && len(p.GoFiles) > 0 && !testOnly[dir] { // a test helper may use another
						t.Errorf("%s imports %s, which is imported only from tests", dir, d)
					}
				}
			case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				foreign = append(foreign, imp)
			}
		}
		want := map[string]bool{}
		for _, m := range backquoted.FindAllStringSubmatch(row.imports, -1) {
			if d := resolve(m[1]); d != "" {
				want[d] = true
			}
		}
		for d := range got {
			if !want[d] {
				t.Errorf("%s imports %s: STYLE.md's row does not name it", dir, d)
			}
		}
		for d := range want {
			if !got[d] {
				t.Errorf("STYLE.md says %s imports %s: it does not", dir, d)
			}
		}
		for _, imp := range foreign {
			if name := shortName(imp); name == "" {
				t.Errorf("%s imports %s: give its module a short name in docs/plan_test.go and STYLE.md", dir, imp)
			} else if !regexp.MustCompile(`(^|[\s,(])` + regexp.QuoteMeta(name) + `([\s,;)]|$)`).MatchString(row.imports) {
				t.Errorf("%s imports %s: STYLE.md's row does not name %s", dir, imp, name)
			}
		}
	}
}

// shortName is the short name of the module imp belongs to, "" for one without.
func shortName(imp string) string {
	for name, prefixes := range thirdParty {
		for _, p := range prefixes {
			if imp == strings.TrimSuffix(p, "/") || strings.HasPrefix(imp, p) {
				return name
			}
		}
	}
	return ""
}

// sourceFiles returns the repository's files of the given extensions, outside testdata, node_modules and dot
// directories.
func sourceFiles(t *testing.T, exts ...string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if slices.Contains(exts, filepath.Ext(path)) || slices.Contains(exts, d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// grepFiles calls match for every line of files, with its file and line number.
func grepFiles(t *testing.T, files []string, match func(file string, n int, line string)) {
	t.Helper()
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			match(file, n, sc.Text())
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
}

var (
	contractCite = regexp.MustCompile(`(\S*)CONTRACT\.md(, "([^"]+)")?`)
	mdHeading    = regexp.MustCompile(`^#{2,} (.+)$`)
)

// TestContractCitations: code that relies on a promise cites docs/CONTRACT.md and the section that makes it, as
// `docs/CONTRACT.md, "Section"`, and that section exists.
func TestContractCitations(t *testing.T) {
	sections := map[string]bool{}
	grepFiles(t, []string{"CONTRACT.md"}, func(_ string, _ int, line string) {
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			sections[m[1]] = true
		}
	})
	if len(sections) < 5 {
		t.Fatalf("CONTRACT.md has %d sections: is the parser still right?", len(sections))
	}
	cites := 0
	files := slices.DeleteFunc(sourceFiles(t, ".go", "Makefile"), func(f string) bool { return f == "../docs/plan_test.go" })
	grepFiles(t, files, func(file string, n int, line string) {
		for _, m := range contractCite.FindAllStringSubmatch(line, -1) {
			cites++
			switch {
			case !strings.HasSuffix(m[1], "docs/"):
				t.Errorf(`%s:%d: cites %q: cite docs/CONTRACT.md, "Section"`, file, n, m[0])
			case m[3] == "":
				t.Errorf(`%s:%d: cites docs/CONTRACT.md without a section: cite docs/CONTRACT.md, "Section"`, file, n)
			case !sections[m[3]]:
				t.Errorf("%s:%d: cites section %q, which docs/CONTRACT.md does not have (it has %s)", file, n, m[3], strings.Join(sortedKeys(sections), ", "))
			}
		}
	})
	if cites == 0 {
		t.Fatal("no code cites docs/CONTRACT.md: is the walk still right?")
	}
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, strconv.Quote(k))
	}
	sort.Strings(ks)
	return ks
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	slugStrip  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	codeFenced = regexp.MustCompile("(?s)```.*?```")
)

// slug is the anchor GitHub gives a heading.
func slug(heading string) string {
	return strings.ReplaceAll(slugStrip.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), ""), " ", "-")
}

// TestDocLinks: every relative link of README.md, CONTRIBUTING.md and the documents in docs/ names a file of the
// repository, and a heading of it when the link has an anchor.
func TestDocLinks(t *testing.T) {
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../README.md", "../CONTRIBUTING.md")
	anchors := func(file string) map[string]bool {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil
		}
		as := map[string]bool{}
		for _, line := range strings.Split(codeFenced.ReplaceAllString(string(b), ""), "\n") {
			if m := regexp.MustCompile(`^#{1,6} (.+)$`).FindStringSubmatch(line); m != nil {
				as[slug(m[1])] = true
			}
		}
		return as
	}
	links := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(codeFenced.ReplaceAllString(string(b), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: no such file", doc, target)
					continue
				}
			}
			if anchor != "" && !anchors(path)[anchor] {
				t.Errorf("%s: link %q: %s has no heading with that anchor", doc, target, path)
			}
		}
	}
	if links == 0 {
		t.Fatal("no relative links found: is the parser still right?")
	}
}

// TestDocCommentsNameTheirIdentifier: an exported identifier's doc comment does not begin with another spelling of
// its name or with an unexported name (timeoutCause for TimeoutCause, agentRef for Ref): the name it had before it
// was exported, which go doc and a reader searching for the name do not find.
func TestDocCommentsNameTheirIdentifier(t *testing.T) {
	checked := 0
	for _, file := range sourceFiles(t, ".go") {
		slash := filepath.ToSlash(file)
		if strings.HasPrefix(slash, "../third_party/") || strings.HasSuffix(file, "_test.go") || strings.HasSuffix(file, ".pb.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		check := func(name *ast.Ident, doc *ast.CommentGroup) {
			if doc == nil || !name.IsExported() {
				return
			}
			checked++
			words := strings.Fields(doc.Text())
			if len(words) == 0 {
				return
			}
			w := strings.TrimRight(words[0], ".,:;")
			if w == name.Name || strings.HasSuffix(w, "."+name.Name) {
				return
			}
			if strings.EqualFold(w, name.Name) || unexportedName(w) {
				t.Errorf("%s: %s's doc comment begins with %q: begin it with %s", fset.Position(name.Pos()), name.Name, w, name.Name)
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				check(d.Name, d.Doc)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					doc := d.Doc
					if len(d.Specs) > 1 {
						doc = nil
					}
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if spec.Doc != nil {
							doc = spec.Doc
						}
						check(spec.Name, doc)
					case *ast.ValueSpec:
						if spec.Doc != nil {
							doc = spec.Doc
						}
						if len(spec.Names) == 1 {
							check(spec.Names[0], doc)
						}
					}
				}
			}
		}
	}
	if checked < 500 {
		t.Fatalf("checked only %d doc comments: is the walk still right?", checked)
	}
}

// unexportedName reports whether w is written like an unexported Go name of two words or more: agentRef, verboseLog.
func unexportedName(w string) bool {
	if w == "" || !unicode.IsLower(rune(w[0])) {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return strings.IndexFunc(w, unicode.IsUpper) > 0
}

var issueRef = regexp.MustCompile(`(?i)issue[ _-]?#?[0-9]+`)

// TestNoIssueNumbers: names and comments say what code does, not which issue asked for it (an issue number means
// nothing to a reader without the tracker, and goes stale when the issue is closed).
func TestNoIssueNumbers(t *testing.T) {
	grepFiles(t, sourceFiles(t, ".go"), func(file string, n int, line string) {
		if strings.HasPrefix(filepath.ToSlash(file), "../third_party/") {
			return // released code of other projects, copied as it is (their PATCHED.md): their issues, not ours
		}
		if m := issueRef.FindString(line); m != "" {
			t.Errorf("%s:%d: %q: say what the code does instead", file, n, m)
		}
	})
}

// TestReadmeIsATour: the README stays what a newcomer reads in five minutes (what a2a is, install, the two
// commands, a tour, where everything else lives); a feature's details go in its guide in docs/.
func TestReadmeIsATour(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 15<<10 {
		t.Errorf("README.md is %d bytes, more than 15 KiB: move details into the guides in docs/ and link them", len(b))
	}
	for _, want := range []string{"## Two commands", "## Install", "PATH", "## A tour", "kill %1", "docs/reference/a2a.md"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("README.md has no %q", want)
		}
	}
}
