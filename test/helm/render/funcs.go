package main

// Helm's own template functions on top of Sprig (helm.sh/helm/v3/pkg/engine/funcs.go), written from
// their documented behaviour: the YAML and JSON converters, plus `required` and `lookup`. `include` and
// `tpl` need the template set and live in engine.go.

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v3"
)

// helmFuncMap is Sprig's text function map with Helm's changes: env and expandenv removed (a chart must
// not read the renderer's environment), Helm's converters, required and lookup added.
func helmFuncMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	extra := template.FuncMap{
		"toYaml":        toYAML,
		"mustToYaml":    mustToYAML,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"mustToJson":    mustToJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"required":      required,
		// lookup reads live objects from the cluster; rendering offline (as `helm template` does) it
		// always finds nothing: an empty map.
		"lookup": func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil
		},
		// Placeholders replaced per template set in engine.go; declared here so templates parse.
		"include": func(string, interface{}) (string, error) { return "", errors.New("include: not bound") },
		"tpl":     func(string, interface{}) (string, error) { return "", errors.New("tpl: not bound") },
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// required fails rendering with msg when val is nil or the empty string (Helm's rule: other zero values
// such as 0 or false pass).
func required(msg string, val interface{}) (interface{}, error) {
	if val == nil {
		return val, errors.New(msg)
	}
	if s, ok := val.(string); ok && s == "" {
		return val, errors.New(msg)
	}
	return val, nil
}

// mustToYAML marshals v as sigs.k8s.io/yaml does: through JSON (so struct tags, number formatting and key
// order are JSON's: sorted map keys), then as block YAML with two-space indents, the final newline trimmed.
func mustToYAML(v interface{}) (string, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(js, &n); err != nil {
		return "", err
	}
	clearStyles(&n)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// clearStyles drops the flow and quoting styles the JSON text gave the nodes, so the encoder writes block
// YAML and quotes only strings that need it (a string "true" or "1" stays quoted: its tag is !!str).
// Strings that YAML 1.1 would read as another type ("on", "no", "1_000", "1:20") are quoted too: yaml.v3
// speaks YAML 1.2, while Kubernetes and Helm read manifests as YAML 1.1 (an unquoted `on` is true there).
func clearStyles(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && yaml11NonString.MatchString(n.Value) {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		clearStyles(c)
	}
}

var yaml11NonString = regexp.MustCompile(`^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|` +
	`on|On|ON|off|Off|OFF|~|null|Null|NULL|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])*(?:\.[0-9_]*)?|` +
	`[-+]?0x[0-9a-fA-F_]+|[-+]?0b[01_]+|[-+]?\.[0-9_]+|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$`)

// toYAML is mustToYAML with errors swallowed into "", as Helm does.
func toYAML(v interface{}) string {
	s, err := mustToYAML(v)
	if err != nil {
		return ""
	}
	return s
}

// fromYAML parses a YAML mapping; on error the map holds the message under "Error", as Helm's does.
func fromYAML(s string) map[string]interface{} {
	v, err := parseYAMLDocument([]byte(s))
	if err != nil {
		return map[string]interface{}{"Error": err.Error()}
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		if v == nil {
			return map[string]interface{}{}
		}
		return map[string]interface{}{"Error": "not a YAML mapping"}
	}
	return m
}

// fromYAMLArray parses a YAML sequence; on error the list holds the message.
func fromYAMLArray(s string) []interface{} {
	v, err := parseYAMLDocument([]byte(s))
	if err != nil {
		return []interface{}{err.Error()}
	}
	a, ok := v.([]interface{})
	if !ok {
		if v == nil {
			return []interface{}{}
		}
		return []interface{}{"not a YAML sequence"}
	}
	return a
}

func mustToJSON(v interface{}) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func toJSON(v interface{}) string {
	s, err := mustToJSON(v)
	if err != nil {
		return ""
	}
	return s
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}
