/**
 * The field manager of the in-server controllers' writes. Kube's controllers write through client-go, whose
 * managedFields entries carry the binary's name; ours are the same process as the API server, but a user
 * reading managedFields should see the controller manager's name, as on a Kubernetes cluster.
 */
export const CONTROLLER_FIELD_MANAGER = 'kube-controller-manager';
