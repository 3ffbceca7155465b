package lint

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
)

// drafts warns where a contract's declared draft ignores what the contract writes: a keyword
// the draft does not define, keywords beside a $ref up to draft-07, a $schema below a
// resource's root. The validator follows the draft, so those words constrain nothing. Each
// schema document is judged once, however many nodes use it, at the keyword's place in the
// schema file (or in the DAG file for an inline schema): the contract's own document and every
// file its $refs reach, except vendored files (see vendored), which nobody edits.
func (l *linter) drafts() []Finding {
	var out []Finding
	seen := map[string]bool{}
	judge := func(s *contract.Schema, what string, at dag.Pos, producer string) {
		if s == nil || s.IsEffective() {
			return
		}
		for i, doc := range s.Reached() {
			key := doc.URL
			if key == "" {
				key = s.Location()
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			// The contract's own document is named as the loader named it; a file a $ref
			// reaches by its path from the DAG file's folder. A document a catalog URL names
			// (not a file:// one) is vendored by definition.
			file, isFile := "", strings.HasPrefix(doc.URL, "file://")
			if isFile {
				file = l.displayPath(doc.URL)
			}
			if (i > 0 && !isFile) || (isFile && l.vendored(file)) {
				continue
			}
			for _, ig := range subset.IgnoredKeywords(doc.Value) {
				pos := l.schemaPos(s, ig.Pointer, at)
				if i > 0 {
					pos = l.filePos(file, ig.Pointer, at)
				}
				f := Finding{Pos: pos, Severity: SeverityWarning}
				if producer != "" {
					f.Producers = []string{producer}
				}
				switch ig.Kind {
				case subset.Undefined:
					f.Code = CodeUndefinedKeyword
					f.Message, f.Hint = l.text.undefinedKeyword(what, ig)
				case subset.BesideRef:
					f.Code = CodeBesideRef
					f.Message, f.Hint = l.text.besideRef(what, ig)
				default:
					f.Code = CodeSchemaNotAtRoot
					f.Message, f.Hint = l.text.schemaNotAtRoot(what, ig)
				}
				out = append(out, f)
			}
		}
	}
	judge(l.d.Params, l.text.paramsWhat(), dag.Pos{File: l.d.File, Line: 1, Col: 1}, "")
	for _, n := range l.d.Nodes {
		judge(n.InputContract, l.text.contractWhat(n.ID, "input"), n.Pos, "")
		judge(n.OutputContract, l.text.contractWhat(n.ID, "output"), n.Pos, n.ID)
	}
	return out
}

// displayPath is the file of a file:// URL as findings name it: by its path from the DAG
// file's folder, joined to that folder as the DAG file was named (schemas/common.json beside
// a DAG file named in the current folder).
func (l *linter) displayPath(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	abs := filepath.FromSlash(p.Path)
	dir := filepath.Dir(l.d.File)
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil {
		return abs
	}
	return filepath.Join(dir, rel)
}

// vendored reports whether file (as displayPath names it) is a published schema copied into
// the project: under one of the DAG's catalog folders, or under a folder named vendor on the
// way from the DAG file's folder (where seam schema vendor and the docs put them). Its
// findings would be about a file nobody edits (286 SEAM-W311 for GitHub's bundle, one per
// definition's $schema), so lint reports none; validation follows its drafts all the same.
func (l *linter) vendored(file string) bool {
	abs, err := filepath.Abs(file)
	if err != nil {
		return false
	}
	for _, e := range l.d.Catalog {
		if dir, err := filepath.Abs(e.Dir); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil && filepath.IsLocal(rel) {
				return true
			}
		}
	}
	absDir, err := filepath.Abs(filepath.Dir(l.d.File))
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil {
		return false
	}
	return slices.Contains(strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/"), "vendor")
}

// filePos is where the keyword at ptr is written in the JSON file the load read; at when the
// file or the keyword is not found.
func (l *linter) filePos(file, ptr string, at dag.Pos) dag.Pos {
	if b, ok := l.source(file); ok {
		if line, col, ok := jsonPos(b, contract.PointerTokens(ptr)); ok {
			return dag.Pos{File: file, Line: line, Col: col}
		}
	}
	return at
}

// schemaPos is where the keyword at ptr of s is written: in its file, or in the DAG file
// for an inline schema (whose location is file:line:col); at when the source is not at hand.
func (l *linter) schemaPos(s *contract.Schema, ptr string, at dag.Pos) dag.Pos {
	loc := s.Location()
	if b, ok := l.source(loc); ok {
		if line, col, ok := jsonPos(b, contract.PointerTokens(ptr)); ok {
			return dag.Pos{File: loc, Line: line, Col: col}
		}
		return at
	}
	i := strings.LastIndexByte(loc, ':')
	j := strings.LastIndexByte(loc[:max(i, 0)], ':')
	if j < 0 {
		return at
	}
	line, err1 := strconv.Atoi(loc[j+1 : i])
	col, err2 := strconv.Atoi(loc[i+1:])
	b, ok := l.source(loc[:j])
	if err1 != nil || err2 != nil || !ok {
		return at
	}
	if line, col, ok := yamlPos(b, line, col, contract.PointerTokens(ptr)); ok {
		return dag.Pos{File: loc[:j], Line: line, Col: col}
	}
	return at
}

// source is a file the DAG's load read, by the path the loader named it or its absolute form.
func (l *linter) source(path string) ([]byte, bool) {
	if s, ok := l.d.Sources[path]; ok {
		return s.Data, true
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false
	}
	for p, s := range l.d.Sources {
		if a, err := filepath.Abs(p); err == nil && a == abs {
			return s.Data, true
		}
	}
	return nil, false
}

// jsonPos is the line and column (1-based, in characters) of the member name or array item
// that tokens lead to in the JSON document b.
func jsonPos(b []byte, tokens []string) (line, col int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var find func(rest []string) (int64, bool)
	find = func(rest []string) (int64, bool) {
		t, err := dec.Token()
		if err != nil || len(rest) == 0 {
			return 0, false
		}
		var skip json.RawMessage
		switch t {
		case json.Delim('{'):
			for dec.More() {
				at := dec.InputOffset()
				k, err := dec.Token()
				if err != nil {
					return 0, false
				}
				if k == rest[0] {
					if len(rest) == 1 {
						return at, true
					}
					return find(rest[1:])
				}
				if dec.Decode(&skip) != nil {
					return 0, false
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if strconv.Itoa(i) == rest[0] {
					if len(rest) == 1 {
						return dec.InputOffset(), true
					}
					return find(rest[1:])
				}
				if dec.Decode(&skip) != nil {
					return 0, false
				}
			}
		}
		return 0, false
	}
	off, ok := find(tokens)
	if !ok {
		return 0, 0, false
	}
	// The offset is where the previous token ended: the name starts after blanks and a comma.
	for off < int64(len(b)) && strings.IndexByte(" \t\r\n,", b[off]) >= 0 {
		off++
	}
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col, true
}

// yamlPos is the position of the key or item that tokens lead to inside the mapping written
// at line:col of the YAML document b.
func yamlPos(b []byte, line, col int, tokens []string) (int, int, bool) {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil {
		return 0, 0, false
	}
	var at func(n *yaml.Node) *yaml.Node
	at = func(n *yaml.Node) *yaml.Node {
		if n.Line == line && n.Column == col && n.Kind == yaml.MappingNode {
			return n
		}
		for _, c := range n.Content {
			if m := at(c); m != nil {
				return m
			}
		}
		return nil
	}
	n := at(&doc)
	for i, t := range tokens {
		if n == nil {
			return 0, 0, false
		}
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		var key, val *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == t {
					key, val = n.Content[j], n.Content[j+1]
				}
			}
		case yaml.SequenceNode:
			if k, err := strconv.Atoi(t); err == nil && k >= 0 && k < len(n.Content) {
				key, val = n.Content[k], n.Content[k]
			}
		}
		if key == nil {
			return 0, 0, false
		}
		if i == len(tokens)-1 {
			return key.Line, key.Column, true
		}
		n = val
	}
	return 0, 0, false
}
