// Command release builds every artefact of an mcplogd release into dist/, and checks the release
// configuration without building them all. It does what GoReleaser would (its archives,
// checksums, brews and scoops sections, in the shapes GoReleaser writes them) with the project's
// own scripts, so that a release needs no tool the module proxy serves only from an unapproved
// copy, and CI builds nothing it does not already build.
//
//	go run ./scripts/release build -tag v1.2.3   # make release TAG=v1.2.3: what the workflow runs
//	go run ./scripts/release build -version X    # make release: a dry run, any git describe stamp
//	go run ./scripts/release check               # make release-check: part of make check
//
// build runs scripts/dist for every target of config.json (the binaries), writes one archive per
// target (mcplogd_VERSION_OS_ARCH.tar.gz, .zip for windows: the binary, README.md and a LICENSE
// when there is one), mcplogd_VERSION_checksums.txt over them, the npm packages (npm/pack.mjs),
// the Homebrew formula (homebrew/Formula/mcplogd.rb, from formula.rb.tmpl) and the Scoop
// manifest (scoop/mcplogd.json, from scoop.json.tmpl) whose URLs and sha256 are the archives',
// and artifacts.json, the list scripts/release-publish publishes from: the GitHub release, the
// npm packages in order, the tap and the bucket.
//
// check fails, naming each problem, when the places that must agree do not: config.json's
// targets, the Makefile's DIST_ALL_TARGETS, npm/pack.mjs's platform table (asked with --plan, not
// copied), the launcher's optionalDependencies and README; the GitHub repository in config.json,
// go.mod and the launcher's repository (npm's provenance is checked against it); the release
// workflow and scripts/release-publish (the commands they must run); and the templates, which it
// renders over real archives and checks against the checksums file. Only this machine's binary
// is built (the other archives hold a stand-in file), once, and run from its archive.
//
// The version of everything is npm/pack.mjs's npmVersion of the stamp: a tag v1.2.3 gives 1.2.3
// to the archives, the formula, the manifest and the npm packages alike; any other stamp gives a
// snapshot, 0.0.0-dev.<commit>, which build writes but nobody publishes.
package main
