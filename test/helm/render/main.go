// Command render is test tooling: a stand-in for `helm template` where no helm binary exists. It renders a
// Helm v3 chart with Go's text/template and Sprig (the engine Helm uses) plus Helm's extra functions, and
// writes every manifest to stdout as one multi-document YAML stream, each document preceded by
// "# Source: <chart>/templates/<file>" and ordered as Helm installs (by kind, then file).
//
//	render --chart DIR [--values FILE]... [--release-name NAME] [--namespace NS]
//	       [--kube-version v1.32.0] [--api-versions GROUP/VERSION]... [--notes | --print-values]
//
// --notes prints the rendered NOTES.txt instead; --print-values prints the merged values as JSON (what
// templates see as .Values). Exit status 1 with the error on stderr when anything fails to render or a
// rendered document is not YAML.
//
// Implemented: chart loading (Chart.yaml apiVersion v2, values.yaml, templates/, .helmignore without
// negations, .Files with Get, GetBytes, Glob, Lines, AsConfig, AsSecrets), values from several files merged
// in order with null deleting a key, numbers as float64 as Helm has them, Sprig's text functions without
// env/expandenv, include, tpl, required, fail, lookup (always an empty map), toYaml, mustToYaml, fromYaml,
// fromYamlArray, toJson, mustToJson, fromJson, fromJsonArray, .Release (Name, Namespace, IsInstall,
// IsUpgrade, Revision, Service), .Chart, .Capabilities (KubeVersion, APIVersions.Has, HelmVersion),
// .Template (Name, BasePath), missing keys rendered as "".
//
// Not implemented: sub-charts and dependencies (refused), --set flags, values.schema.json validation (the
// tests validate values against the schema with ajv), toToml, hooks (hook manifests are printed like any
// other), .Capabilities' per-kind "group/version/Kind" entries, strict mode (missingkey=error), library
// charts, YAML 1.1 booleans in values files (`yes`/`on` stay strings here; Helm reads them as true).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func run() error {
	var valuesFiles, apiVersions multiFlag
	chartDir := flag.String("chart", "", "chart directory (required)")
	release := flag.String("release-name", "release-name", "release name (.Release.Name)")
	namespace := flag.String("namespace", "default", "release namespace (.Release.Namespace)")
	kubeVersion := flag.String("kube-version", "v1.32.0", "Kubernetes version (.Capabilities.KubeVersion)")
	notes := flag.Bool("notes", false, "print the rendered NOTES.txt instead of the manifests")
	printValues := flag.Bool("print-values", false, "print the merged values as JSON instead of the manifests")
	flag.Var(&valuesFiles, "values", "values file merged over the chart's values.yaml (repeatable, in order)")
	flag.Var(&apiVersions, "api-versions", "extra API version for .Capabilities.APIVersions (repeatable)")
	flag.Parse()
	if *chartDir == "" || flag.NArg() > 0 {
		flag.Usage()
		return fmt.Errorf("--chart is required and no positional arguments are accepted")
	}
	c, err := loadChart(*chartDir)
	if err != nil {
		return err
	}
	values := c.Values
	for _, f := range valuesFiles {
		v, err := readValuesFile(f)
		if err != nil {
			return err
		}
		values = coalesce(values, v)
	}
	if *printValues {
		b, err := json.MarshalIndent(values, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
		return nil
	}
	e, err := newEngine(c)
	if err != nil {
		return err
	}
	top := map[string]interface{}{
		"Values": values,
		"Release": map[string]interface{}{
			"Name": *release, "Namespace": *namespace, "IsInstall": true, "IsUpgrade": false,
			"Revision": 1, "Service": "Helm",
		},
		"Chart":        c.Meta,
		"Capabilities": newCapabilities(*kubeVersion, apiVersions),
		"Files":        c.Files,
	}
	if *notes {
		name := c.Meta.Name + "/templates/NOTES.txt"
		if _, ok := c.Templates[name]; !ok {
			return fmt.Errorf("the chart has no templates/NOTES.txt")
		}
		out, err := e.render(name, top)
		if err != nil {
			return err
		}
		fmt.Print(out)
		return nil
	}
	var docs []manifest
	for _, name := range e.outputNames() {
		out, err := e.render(name, top)
		if err != nil {
			return err
		}
		split, err := splitManifests(name, out)
		if err != nil {
			return err
		}
		docs = append(docs, split...)
	}
	sortByInstallOrder(docs)
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", d.source, d.content)
	}
	fmt.Print(b.String())
	return nil
}

type manifest struct {
	source  string
	content string
	kind    string
}

// Helm's document separator: a line starting with "---".
var separator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// splitManifests cuts a rendered file into documents, drops empty (or comment-only) ones, and parses each (a document that
// is not a YAML mapping with a kind is an error, as `helm template` reports it).
func splitManifests(source, text string) ([]manifest, error) {
	var out []manifest
	for _, part := range separator.Split(text, -1) {
		if strings.TrimSpace(part) == "" {
			continue
		}
		if v, err := parseYAMLDocument([]byte(part)); err == nil && v == nil {
			continue // comments only: nothing to install
		}
		var head struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
		}
		if err := yaml.Unmarshal([]byte(part), &head); err != nil {
			return nil, fmt.Errorf("YAML parse error on %s: %v", source, err)
		}
		if head.Kind == "" || head.APIVersion == "" {
			return nil, fmt.Errorf("%s: a document without apiVersion or kind:\n%s", source, part)
		}
		out = append(out, manifest{source: source, content: strings.Trim(part, " \t\n"), kind: head.Kind})
	}
	return out, nil
}

// installOrder is Helm's order of kinds at install; other kinds come after, by name.
var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
	"ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
	"Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
}

func sortByInstallOrder(docs []manifest) {
	rank := map[string]int{}
	for i, k := range installOrder {
		rank[k] = i
	}
	sort.SliceStable(docs, func(i, j int) bool {
		ri, iok := rank[docs[i].kind]
		rj, jok := rank[docs[j].kind]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		default:
			return docs[i].kind < docs[j].kind
		}
	})
}
