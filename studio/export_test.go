package studio

// LogsQL is logsQL, for the tests outside the package that compare a
// LogsQL filter's answers with a local search's.
var LogsQL = logsQL
