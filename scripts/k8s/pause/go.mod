module dht.dev/k8s/pause

go 1.22
