package main

// Values as Helm sees them. Helm reads YAML through sigs.k8s.io/yaml, which converts YAML to JSON and
// decodes the JSON into interface{}: every number becomes a float64, every mapping a
// map[string]interface{}, timestamps stay strings. Templates behave differently on int and float64
// (`{{ 1000000 }}` vs a value of 1e6 prints "1e+06"), so the renderer reproduces that conversion from
// yaml.v3's node tree instead of decoding into Go's native types.

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// readValuesFile parses one YAML values file; an empty file is an empty map.
func readValuesFile(path string) (map[string]interface{}, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := parseYAMLDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if v == nil {
		return map[string]interface{}{}, nil
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: values must be a mapping, not %T", path, v)
	}
	return m, nil
}

// parseYAMLDocument decodes the first YAML document of data into JSON-like Go values.
func parseYAMLDocument(data []byte) (interface{}, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, nil
	}
	return nodeToValue(&doc)
}

// nodeToValue converts a yaml.v3 node into the values sigs.k8s.io/yaml would produce.
func nodeToValue(n *yaml.Node) (interface{}, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeToValue(n.Content[0])
	case yaml.AliasNode:
		return nodeToValue(n.Alias)
	case yaml.SequenceNode:
		out := make([]interface{}, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := nodeToValue(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]interface{}{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				// `<<: *anchor` (or a list of anchors): the anchored mappings' keys, without overriding.
				srcs := []*yaml.Node{vn}
				if vn.Kind == yaml.SequenceNode {
					srcs = vn.Content
				}
				for _, s := range srcs {
					mv, err := nodeToValue(s)
					if err != nil {
						return nil, err
					}
					mm, ok := mv.(map[string]interface{})
					if !ok {
						return nil, fmt.Errorf("line %d: merge key needs a mapping", k.Line)
					}
					for mk, mvv := range mm {
						if _, exists := out[mk]; !exists {
							out[mk] = mvv
						}
					}
				}
				continue
			}
			key, err := nodeToValue(k)
			if err != nil {
				return nil, err
			}
			v, err := nodeToValue(vn)
			if err != nil {
				return nil, err
			}
			// JSON keys are strings: sigs.k8s.io/yaml formats non-string keys.
			out[scalarKey(key)] = v
		}
		return out, nil
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node kind %v", n.Line, n.Kind)
}

func scalarKey(v interface{}) string {
	switch k := v.(type) {
	case string:
		return k
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(k, 'f', -1, 64)
	default:
		return fmt.Sprint(k)
	}
}

func scalarValue(n *yaml.Node) (interface{}, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, err
		}
		return b, nil
	case "!!int":
		s := strings.ReplaceAll(n.Value, "_", "")
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return float64(i), nil
		}
		if strings.HasPrefix(s, "0o") || strings.HasPrefix(s, "-0o") || strings.HasPrefix(s, "+0o") {
			if i, err := strconv.ParseInt(strings.Replace(s, "0o", "0", 1), 8, 64); err == nil {
				return float64(i), nil
			}
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		return f, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("line %d: %s cannot be represented in JSON", n.Line, n.Value)
		}
		return f, nil
	default:
		// !!str, !!timestamp, !!binary and custom tags: their text, as JSON has no other type for them.
		return n.Value, nil
	}
}

// coalesce merges over onto base (a new map; base is not changed): mappings merge key by key, anything else
// replaces, and a null in over deletes the key (Helm's way of unsetting a chart default).
func coalesce(base, over map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if v == nil {
			delete(out, k)
			continue
		}
		om, oIsMap := v.(map[string]interface{})
		bm, bIsMap := out[k].(map[string]interface{})
		if oIsMap && bIsMap {
			out[k] = coalesce(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}
