{{/* Names and labels shared by the templates. */}}

{{- define "dht-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "dht-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "dht-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dht-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "dht-operator.labels" -}}
{{ include "dht-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "dht-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "dht-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The rules the operator needs, and nothing more: read its DhtClusters and write their status;
     own (server-side apply) the objects a cluster consists of; read pods for member readiness.
     HelmChartIT runs the operator with exactly these (create: server-side apply of a new object). */}}
{{- define "dht-operator.rules" -}}
- apiGroups: ["dht.dev"]
  resources: ["dhtclusters"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["dht.dev"]
  resources: ["dhtclusters/status"]
  verbs: ["patch"]
# Owner references with blockOwnerDeletion need this where the OwnerReferencesPermissionEnforcement
# admission plugin runs (e.g. OpenShift).
- apiGroups: ["dht.dev"]
  resources: ["dhtclusters/finalizers"]
  verbs: ["update"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["get", "list", "watch", "create", "patch"]
- apiGroups: [""]
  resources: ["services", "configmaps", "serviceaccounts"]
  verbs: ["get", "list", "watch", "create", "patch"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "patch"]
# delete: replacing a member (its pod annotated dht.dev/replace=true) deletes its volume claim, then its pod; the
# StatefulSet makes both anew and the node rebuilds (claims: the rule at the end).
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "delete"]
# Privileged admin calls to the members (start a backup or a restore) go through a port-forward, so that the node
# sees them on its loopback, the admin plane's rule without an admin token (nodeadmin/PortForwards).
- apiGroups: [""]
  resources: ["pods/portforward"]
  verbs: ["get", "create"]
# An Event on each phase change of a cluster.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
# DhtBenchmarks: read them, write their status; their runs' Jobs (create; patch suspends a superseded run's Job)
# and results claims (created once, never changed). The pods' termination messages come from the pods rule above.
- apiGroups: ["dht.dev"]
  resources: ["dhtbenchmarks"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["dht.dev"]
  resources: ["dhtbenchmarks/status"]
  verbs: ["patch"]
- apiGroups: ["dht.dev"]
  resources: ["dhtbenchmarks/finalizers"]
  verbs: ["update"]
# DhtBackups and DhtBackupSchedules: read them, write their status; a schedule creates its runs' DhtBackups and
# deletes those its retention removed from the store (the store is reached through the members, never directly).
- apiGroups: ["dht.dev"]
  resources: ["dhtbackups"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: ["dht.dev"]
  resources: ["dhtbackups/status", "dhtbackupschedules/status"]
  verbs: ["patch"]
- apiGroups: ["dht.dev"]
  resources: ["dhtbackupschedules"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["dht.dev"]
  resources: ["dhtbackups/finalizers", "dhtbackupschedules/finalizers"]
  verbs: ["update"]
# DhtUsers: read them and write their status; their certificate Secrets (the secrets rule) are owned by them.
- apiGroups: ["dht.dev"]
  resources: ["dhtusers"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["dht.dev"]
  resources: ["dhtusers/status"]
  verbs: ["patch"]
- apiGroups: ["dht.dev"]
  resources: ["dhtusers/finalizers"]
  verbs: ["update"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "watch", "create", "patch"]
# Benchmark results claims (created once, never changed); a replaced member's claim (deleted, see pods above).
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "delete"]
# Security (on by default for every DhtCluster): the CA, the members' certificate and the tokens in Secrets; a user's
# own Secret named in spec.tls/spec.auth is read (get). No delete: the garbage collector removes them with the cluster.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch", "create", "patch"]
# A cluster's NetworkPolicy; delete when spec.network.policies is switched off.
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
# spec.tls.mode CertManager: the Certificate (cert-manager is optional; without it these rules grant nothing).
- apiGroups: ["cert-manager.io"]
  resources: ["certificates"]
  verbs: ["get", "create", "patch"]
{{- end -}}
