module github.com/mcplogd/mcplogd

go 1.26.8

require go.etcd.io/bbolt v1.5.0

require (
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
