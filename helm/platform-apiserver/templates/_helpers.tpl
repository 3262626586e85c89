{{/*
Names and labels. Selector labels are name + instance + component only: they never depend on other values,
so an upgrade never changes a Deployment's or StatefulSet's (immutable) selector.
*/}}
{{- define "platform-apiserver.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "platform-apiserver.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "platform-apiserver.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Common labels of every object; pass a dict with "root" ($) and "component". */}}
{{- define "platform-apiserver.labels" -}}
helm.sh/chart: {{ include "platform-apiserver.chart" .root }}
{{ include "platform-apiserver.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: platform-apiserver
{{- end }}

{{- define "platform-apiserver.selectorLabels" -}}
app.kubernetes.io/name: {{ include "platform-apiserver.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "platform-apiserver.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "platform-apiserver.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "platform-apiserver.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Secret the chart generates for whatever credentials the values do not name. */}}
{{- define "platform-apiserver.credentialsSecretName" -}}
{{- printf "%s-credentials" (include "platform-apiserver.fullname" .) }}
{{- end }}

{{/* "true" when the chart must generate the serving certificate (no Secret, no cert-manager). */}}
{{- define "platform-apiserver.generateTLS" -}}
{{- if and (not .Values.tls.secretName) (not .Values.tls.certManager.enabled) }}true{{ end }}
{{- end }}

{{/* "true" when any credential is generated into the credentials Secret. */}}
{{- define "platform-apiserver.generateCredentials" -}}
{{- if or (include "platform-apiserver.generateTLS" .) (not .Values.auth.tokenSecretName) (not .Values.auth.serviceAccountKeySecretName) (not .Values.auth.signingCASecretName) }}true{{ end }}
{{- end }}

{{- define "platform-apiserver.tlsSecretName" -}}
{{- if .Values.tls.secretName }}{{ .Values.tls.secretName }}
{{- else if .Values.tls.certManager.enabled }}{{ include "platform-apiserver.fullname" . }}-tls
{{- else }}{{ include "platform-apiserver.credentialsSecretName" . }}
{{- end }}
{{- end }}

{{/* The names clients reach the API by: the Service's, plus the extra ones. */}}
{{- define "platform-apiserver.dnsNames" -}}
{{- $svc := include "platform-apiserver.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- $names := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns) "localhost" }}
{{- concat $names .Values.tls.extraDnsNames | uniq | toJson }}
{{- end }}

{{/* etcd client URLs: the external endpoints, or every bundled member by its stable DNS name. */}}
{{- define "platform-apiserver.etcdServers" -}}
{{- if eq .Values.etcd.mode "external" }}
{{- $eps := required "etcd.external.endpoints: list the etcd client URLs when etcd.mode is external" .Values.etcd.external.endpoints }}
{{- join "," $eps }}
{{- else }}
{{- $fullname := include "platform-apiserver.fullname" . }}
{{- $urls := list }}
{{- range $i := until (int .Values.etcd.bundled.replicas) }}
{{- $urls = append $urls (printf "http://%s-etcd-%d.%s-etcd-headless.%s.svc:2379" $fullname $i $fullname $.Release.Namespace) }}
{{- end }}
{{- join "," $urls }}
{{- end }}
{{- end }}

{{/* Where the pods mount what they read: the server's flags name these paths (make cluster maps them). */}}
{{- define "platform-apiserver.mountRoot" -}}/etc/platform-apiserver{{- end }}

{{/*
The server's complete argument list, one place: the flags the chart derives from its values, then
server.flags (sorted by name), then server.extraArgs. Rendered into the Deployment and hashed into its
checksum annotation; `make cluster` runs its replicas with the same list (deploy/cluster-values.yaml).
*/}}
{{- define "platform-apiserver.args" -}}
{{- $root := include "platform-apiserver.mountRoot" . }}
{{- $managed := list "bind-address" "secure-port" "advertise-address" "data-dir" "etcd-servers" "etcd-prefix" "storage" "tls-cert-file" "tls-private-key-file" "token-auth-file" "service-account-key-file" "service-account-signing-key-file" "service-account-issuer" "cluster-signing-cert-file" "cluster-signing-key-file" "client-ca-file" "etcd-cafile" "etcd-certfile" "etcd-keyfile" "shutdown-delay-duration" "shutdown-timeout" }}
{{- $args := list "--bind-address=0.0.0.0" (printf "--secure-port=%d" (int .Values.server.securePort)) "--advertise-address=$(POD_IP)" "--data-dir=/var/lib/platform-apiserver" }}
{{- $args = append $args (printf "--etcd-servers=%s" (include "platform-apiserver.etcdServers" .)) }}
{{- $args = append $args (printf "--etcd-prefix=%s" .Values.etcd.prefix) }}
{{- if and (eq .Values.etcd.mode "external") .Values.etcd.external.clientTLSSecretName }}
{{- $args = concat $args (list (printf "--etcd-cafile=%s/etcd/ca.crt" $root) (printf "--etcd-certfile=%s/etcd/tls.crt" $root) (printf "--etcd-keyfile=%s/etcd/tls.key" $root)) }}
{{- end }}
{{- $args = concat $args (list (printf "--tls-cert-file=%s/tls/tls.crt" $root) (printf "--tls-private-key-file=%s/tls/tls.key" $root)) }}
{{- $args = append $args (printf "--token-auth-file=%s/tokens/tokens.csv" $root) }}
{{- $args = concat $args (list (printf "--service-account-key-file=%s/service-account/sa.key" $root) (printf "--service-account-signing-key-file=%s/service-account/sa.key" $root) (printf "--service-account-issuer=%s" .Values.auth.serviceAccountIssuer)) }}
{{- $args = concat $args (list (printf "--cluster-signing-cert-file=%s/signing-ca/tls.crt" $root) (printf "--cluster-signing-key-file=%s/signing-ca/tls.key" $root)) }}
{{- if .Values.auth.clientCASecretName }}
{{- $args = append $args (printf "--client-ca-file=%s/client-ca/ca.crt" $root) }}
{{- end }}
{{- $args = concat $args (list (printf "--shutdown-delay-duration=%ds" (int .Values.server.shutdownDelaySeconds)) (printf "--shutdown-timeout=%ds" (int .Values.server.shutdownTimeoutSeconds))) }}
{{- range $name := keys .Values.server.flags | sortAlpha }}
{{- if has $name $managed }}
{{- fail (printf "server.flags.%s: the chart sets --%s from its other values (see values.yaml); set those instead" $name $name) }}
{{- end }}
{{- $v := index $.Values.server.flags $name }}
{{- if kindIs "slice" $v }}
{{- $args = append $args (printf "--%s=%s" $name (join "," $v)) }}
{{- else if and (kindIs "float64" $v) (eq (float64 (int64 $v)) $v) }}
{{- /* Whole numbers: values are float64 in Helm, and 1000000 would print as 1e+06. */}}
{{- $args = append $args (printf "--%s=%d" $name (int64 $v)) }}
{{- else }}
{{- $args = append $args (printf "--%s=%v" $name $v) }}
{{- end }}
{{- end }}
{{- concat $args .Values.server.extraArgs | toJson }}
{{- end }}

{{/* terminationGracePeriodSeconds: at least the shutdown delay plus the shutdown timeout. */}}
{{- define "platform-apiserver.terminationGracePeriod" -}}
{{- $min := add (int .Values.server.shutdownDelaySeconds) (int .Values.server.shutdownTimeoutSeconds) }}
{{- if kindIs "invalid" .Values.terminationGracePeriodSeconds }}
{{- add $min 10 }}
{{- else if lt (int .Values.terminationGracePeriodSeconds) (int $min) }}
{{- fail (printf "terminationGracePeriodSeconds %d is below server.shutdownDelaySeconds + server.shutdownTimeoutSeconds (%d): the kubelet would kill replicas mid-drain" (int .Values.terminationGracePeriodSeconds) (int $min)) }}
{{- else }}
{{- int .Values.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}
