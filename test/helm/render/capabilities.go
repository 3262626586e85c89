package main

// .Capabilities as `helm template` sees it offline: a fixed Kubernetes version and a set of API versions
// (built-in group versions plus any given with --api-versions), never a live cluster's.

import "strings"

type KubeVersion struct {
	Version string
	Major   string
	Minor   string
}

func (k KubeVersion) String() string     { return k.Version }
func (k KubeVersion) GitVersion() string { return k.Version }

// VersionSet is .Capabilities.APIVersions: "group/version" and "group/version/Kind" strings.
type VersionSet []string

// Has reports whether apiVersion (or "apiVersion/Kind") is in the set.
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

type HelmVersion struct {
	Version   string
	GitCommit string
	GoVersion string
}

type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion HelmVersion
}

// builtinAPIVersions are the group versions a Kubernetes 1.32 API server serves by default (without the
// per-kind "group/version/Kind" entries Helm also lists).
var builtinAPIVersions = []string{
	"v1", "admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "apiregistration.k8s.io/v1",
	"apps/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1", "autoscaling/v1", "autoscaling/v2",
	"batch/v1", "certificates.k8s.io/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1", "events.k8s.io/v1",
	"flowcontrol.apiserver.k8s.io/v1", "networking.k8s.io/v1", "node.k8s.io/v1", "policy/v1",
	"rbac.authorization.k8s.io/v1", "scheduling.k8s.io/v1", "storage.k8s.io/v1",
}

// newCapabilities builds the capabilities for kubeVersion ("v1.32.0") plus the extra API versions.
func newCapabilities(kubeVersion string, extra []string) Capabilities {
	v := strings.TrimPrefix(kubeVersion, "v")
	parts := strings.SplitN(v, ".", 3)
	major, minor := parts[0], ""
	if len(parts) > 1 {
		minor = parts[1]
	}
	set := append(VersionSet{}, builtinAPIVersions...)
	set = append(set, extra...)
	return Capabilities{
		KubeVersion: KubeVersion{Version: "v" + v, Major: major, Minor: minor},
		APIVersions: set,
		HelmVersion: HelmVersion{Version: "v3.16.0", GoVersion: "go1.19"},
	}
}
