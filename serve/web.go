package serve

import "github.com/seam-dag/seam/internal/i18n"

// webTexts are the words of the run page's rerun buttons and timeline, and of the DAG
// pages' history.
func webTexts() []i18n.Message {
	return []i18n.Message{
		i18n.M("Rerun from here"),
		i18n.M("Timeline"),
		i18n.M("The timeline spans"),
	}
}
