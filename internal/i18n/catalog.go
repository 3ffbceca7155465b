package i18n

// ja holds the Japanese of every English format given to Sprintf and Errorf. It is read-only
// data: nothing writes to it after initialisation.
var ja = map[string]string{}
