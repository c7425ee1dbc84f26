// Package shellwords splits a command line into words as a shell would,
// without a shell: the gateway's cmd: upstreams, `mcplogd run` and
// `serve --run`, and the pager ($MCPLOGD_PAGER, $PAGER) all read their
// commands with Split, so one command line means one thing wherever it is
// written, and quotes keep a path with spaces one word.
//
//	args, err := shellwords.Split(`godot3-server --path 'My Game' -s`)
//	// args: ["godot3-server" "--path" "My Game" "-s"]
//
// Nothing is expanded (no variables, globs, ~ or operators) and nothing
// runs through sh -c: the words go to exec as they are. It lives under
// internal because it is not part of mcplogd's API, and below the packages
// that use it because it is not the domain's.
package shellwords
