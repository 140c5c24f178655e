package snapshot

// The change kinds of media type handlers.
const (
	MediaHandlerAdded   ChangeKind = "media_handler_added"
	MediaHandlerRemoved ChangeKind = "media_handler_removed"
	MediaHandlerChanged ChangeKind = "media_handler_changed"
)

// builtinMedia are the media types SVC renders itself for any relation: a
// handler for one of them changes answers that clients already get.
var builtinMedia = map[string]bool{
	"application/json": true, "text/csv": true, "application/geo+json": true, "*/*": true,
}

// mediaHandlers compares media handlers by the relation (or anyelement)
// and media type they answer for.
func (d *differ) mediaHandlers(old, new []MediaHandler) {
	key := func(h *MediaHandler) handlerKey { return handlerKey{h.Relation, h.Media.Type} }
	before, after := byName(old, key), byName(new, key)
	for k, o := range before {
		n, ok := after[k]
		switch {
		case !ok:
			d.add(Change{Kind: MediaHandlerRemoved, Object: handlerObject(k), Old: o.Aggregate.String(), Breaking: true,
				Reason: "requests accepting only " + k.media + " are refused or answered by another handler"})
		case n.Aggregate != o.Aggregate || n.Media.Send != o.Media.Send:
			d.add(Change{Kind: MediaHandlerChanged, Object: handlerObject(k), Old: o.Aggregate.String(), New: n.Aggregate.String(),
				Breaking: true, Reason: k.media + " bodies are rendered by another aggregate"})
		}
	}
	for k, n := range after {
		if _, ok := before[k]; ok {
			continue
		}
		c := Change{Kind: MediaHandlerAdded, Object: handlerObject(k), New: n.Aggregate.String()}
		// A handler for a media type answered before, by SVC itself or by
		// an anyelement handler, changes the bodies clients get.
		_, shadows := before[handlerKey{media: k.media}]
		if builtinMedia[k.media] || (k.relation != QualifiedName{} && shadows) {
			c.Breaking, c.Reason = true, k.media+" bodies are rendered by "+n.Aggregate.String()
		}
		d.add(c)
	}
}

// handlerObject names a handler: "api.lines as text/csv", or
// "any relation as text/csv" for an anyelement one.
func handlerObject(k handlerKey) string {
	if k.relation == (QualifiedName{}) {
		return "any relation as " + k.media
	}
	return k.relation.String() + " as " + k.media
}
