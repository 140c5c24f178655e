package config

// What an error's body tells a client (client-error-verbosity): every
// field, or only the code and the message, as PostgREST 13's minimal
// does, for a deployment that would not show callers the database's
// details and hints.
const (
	ClientErrorsVerbose = "verbose"
	ClientErrorsMinimal = "minimal"
)
