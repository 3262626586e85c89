package main

// Loading a chart directory the way Helm's loader splits it: Chart.yaml into .Chart, values.yaml into the
// defaults, templates/ into the template set, and every other file (minus .helmignore matches) into
// .Files.

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// ChartMeta mirrors the fields of Helm's chart.Metadata that templates read as .Chart.<Field>.
type ChartMeta struct {
	APIVersion   string            `yaml:"apiVersion"`
	Name         string            `yaml:"name"`
	Version      string            `yaml:"version"`
	KubeVersion  string            `yaml:"kubeVersion"`
	Description  string            `yaml:"description"`
	Type         string            `yaml:"type"`
	Keywords     []string          `yaml:"keywords"`
	Home         string            `yaml:"home"`
	Sources      []string          `yaml:"sources"`
	Icon         string            `yaml:"icon"`
	AppVersion   string            `yaml:"appVersion"`
	Deprecated   bool              `yaml:"deprecated"`
	Annotations  map[string]string `yaml:"annotations"`
	Maintainers  []Maintainer      `yaml:"maintainers"`
	Dependencies []interface{}     `yaml:"dependencies"`
}

type Maintainer struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
	URL   string `yaml:"url"`
}

// Chart is a loaded chart directory.
type Chart struct {
	Meta      ChartMeta
	Values    map[string]interface{}
	Templates map[string]string // "<chart name>/templates/<relative path>" -> text
	Files     Files
}

// loadChart reads dir. A chart with dependencies is refused: sub-charts are not implemented.
func loadChart(dir string) (*Chart, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	c := &Chart{Templates: map[string]string{}, Files: Files{}}
	if err := yaml.Unmarshal(raw, &c.Meta); err != nil {
		return nil, fmt.Errorf("Chart.yaml: %v", err)
	}
	if c.Meta.APIVersion != "v2" {
		return nil, fmt.Errorf("Chart.yaml: apiVersion %q: only v2 charts are supported", c.Meta.APIVersion)
	}
	if c.Meta.Name == "" || c.Meta.Version == "" {
		return nil, fmt.Errorf("Chart.yaml: name and version are required")
	}
	if len(c.Meta.Dependencies) > 0 {
		return nil, fmt.Errorf("Chart.yaml: dependencies (sub-charts) are not implemented by this renderer")
	}
	c.Values = map[string]interface{}{}
	if _, err := os.Stat(filepath.Join(dir, "values.yaml")); err == nil {
		if c.Values, err = readValuesFile(filepath.Join(dir, "values.yaml")); err != nil {
			return nil, err
		}
	}
	ignore, err := readHelmignore(filepath.Join(dir, ".helmignore"))
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if ignore.matches(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if rel == "charts" {
				return fmt.Errorf("charts/: sub-charts are not implemented by this renderer")
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(rel, "templates/"):
			c.Templates[c.Meta.Name+"/"+rel] = string(data)
		case rel == "Chart.yaml" || rel == "values.yaml" || rel == "values.schema.json" ||
			rel == "Chart.lock" || rel == "requirements.yaml" || rel == "requirements.lock":
			// Special files: not in .Files.
		default:
			c.Files[rel] = data
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// helmignore holds .helmignore's patterns: blank lines and # comments skipped; a pattern ending in "/"
// matches directories only; a pattern with a "/" matches the path from the chart root, else any base name.
// Negations ("!pattern") and "**" are not implemented and refused.
type helmignore []string

func readHelmignore(p string) (helmignore, error) {
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return helmignore{".helmignore"}, nil
	}
	if err != nil {
		return nil, err
	}
	h := helmignore{".helmignore"}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") || strings.Contains(line, "**") {
			return nil, fmt.Errorf(".helmignore: %q: negations and ** are not implemented by this renderer", line)
		}
		h = append(h, line)
	}
	return h, nil
}

func (h helmignore) matches(rel string, isDir bool) bool {
	for _, pat := range h {
		p := pat
		if strings.HasSuffix(p, "/") {
			if !isDir {
				continue
			}
			p = strings.TrimSuffix(p, "/")
		}
		p = strings.TrimPrefix(p, "/")
		target := path.Base(rel)
		if strings.Contains(p, "/") {
			target = rel
		}
		if ok, _ := path.Match(p, target); ok {
			return true
		}
	}
	return false
}

// Files is .Files: the chart's non-special files by path relative to the chart root.
type Files map[string][]byte

// GetBytes returns a file's content, nil when absent.
func (f Files) GetBytes(name string) []byte { return f[name] }

// Get returns a file's content as a string, "" when absent.
func (f Files) Get(name string) string { return string(f[name]) }

// Glob returns the files whose paths match pattern ("*" and "?" stay within a path segment, "**" crosses
// segments, "{a,b}" alternates).
func (f Files) Glob(pattern string) Files {
	re := globRegexp(pattern)
	out := Files{}
	for k, v := range f {
		if re.MatchString(k) {
			out[k] = v
		}
	}
	return out
}

func globRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		switch {
		case ch == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			b.WriteString(".*")
			i++
		case ch == '*':
			b.WriteString("[^/]*")
		case ch == '?':
			b.WriteString("[^/]")
		case ch == '{':
			b.WriteString("(?:")
		case ch == '}':
			b.WriteString(")")
		case ch == ',':
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// Lines splits a file into lines (a final newline does not make an empty last line).
func (f Files) Lines(name string) []string {
	s := string(f[name])
	if s == "" {
		return []string{}
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// AsConfig renders the files as a ConfigMap's data: base name -> content, as YAML.
func (f Files) AsConfig() string {
	m := map[string]string{}
	for _, k := range f.sortedKeys() {
		m[path.Base(k)] = string(f[k])
	}
	return toYAML(m)
}

// AsSecrets renders the files as a Secret's data: base name -> base64 content, as YAML.
func (f Files) AsSecrets() string {
	m := map[string]string{}
	for _, k := range f.sortedKeys() {
		m[path.Base(k)] = base64.StdEncoding.EncodeToString(f[k])
	}
	return toYAML(m)
}

func (f Files) sortedKeys() []string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
