package main

// The template engine: every template of the chart parsed into one text/template set (so `define`d names
// are shared, partials included), executed per file with Helm's top-level object, then `include` and
// `tpl` bound to that set. Like Helm: missing map keys render as "" (missingkey=zero plus the removal of
// "<no value>"), files whose base name starts with "_" are partials (parsed, never output), and include
// recursion is capped.

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"text/template"
)

const maxIncludeDepth = 1000

type engine struct {
	set      *template.Template
	chart    *Chart
	includes map[string]int
}

// newEngine parses every template of c (sorted by name, so errors come out in a stable order).
func newEngine(c *Chart) (*engine, error) {
	e := &engine{chart: c, includes: map[string]int{}}
	e.set = template.New("gotpl").Option("missingkey=zero").Funcs(helmFuncMap())
	names := make([]string, 0, len(c.Templates))
	for n := range c.Templates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := e.set.New(n).Parse(c.Templates[n]); err != nil {
			return nil, err
		}
	}
	e.set.Funcs(template.FuncMap{"include": e.include, "tpl": e.tpl})
	return e, nil
}

// include renders a named template into a string (so it can be piped to indent/nindent).
func (e *engine) include(name string, data interface{}) (string, error) {
	if e.includes[name] >= maxIncludeDepth {
		return "", fmt.Errorf("include: %q: rendering recursion deeper than %d", name, maxIncludeDepth)
	}
	e.includes[name]++
	defer func() { e.includes[name]-- }()
	var b strings.Builder
	if err := e.set.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// tpl renders text as a template, with the chart's named templates available and vals (normally `$`) as
// its data.
func (e *engine) tpl(text string, vals interface{}) (string, error) {
	clone, err := e.set.Clone()
	if err != nil {
		return "", err
	}
	name := "tpl"
	if m, ok := vals.(map[string]interface{}); ok {
		if t, ok := m["Template"].(map[string]interface{}); ok {
			if n, ok := t["Name"].(string); ok && n != "" {
				name = n + "#tpl"
			}
		}
	}
	if _, err := clone.New(name).Parse(text); err != nil {
		return "", fmt.Errorf("tpl: %v", err)
	}
	var b strings.Builder
	if err := clone.ExecuteTemplate(&b, name, vals); err != nil {
		return "", fmt.Errorf("tpl: %v", err)
	}
	return strings.ReplaceAll(b.String(), "<no value>", ""), nil
}

// render executes one template with Helm's top-level object.
func (e *engine) render(name string, top map[string]interface{}) (string, error) {
	data := map[string]interface{}{}
	for k, v := range top {
		data[k] = v
	}
	data["Template"] = map[string]interface{}{"Name": name, "BasePath": e.chart.Meta.Name + "/templates"}
	var b strings.Builder
	if err := e.set.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return strings.ReplaceAll(b.String(), "<no value>", ""), nil
}

// outputNames lists the templates `helm template` prints: not partials, not NOTES.txt, YAML or JSON files.
func (e *engine) outputNames() []string {
	var out []string
	for n := range e.chart.Templates {
		base := path.Base(n)
		if strings.HasPrefix(base, "_") || base == "NOTES.txt" {
			continue
		}
		ext := path.Ext(base)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
