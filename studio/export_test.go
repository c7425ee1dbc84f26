package studio

// LogsQL is logsQL of query string s, parsed as oplog.Resolve parses it,
// for the tests outside the package that compare a LogsQL filter's
// answers with a local search's.
var LogsQL = logsQLText
