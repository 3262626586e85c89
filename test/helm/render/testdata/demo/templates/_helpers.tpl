{{- define "demo.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
{{- define "demo.recurse" -}}{{ include "demo.recurse" . }}{{- end }}
