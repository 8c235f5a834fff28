// The shapes a card's state has on the page: what the kernel syncs (nbacp/widgets/card.py and
// each kind's spec: nbacp/widgets/form_spec.py, nbacp/render/permission.py,
// nbacp/widgets/url_card.py, nbacp/widgets/auth_card.py) and what the card's parts hand each
// other. Types only (`npm run typecheck`): nothing here reaches the bundle. The page still
// checks what it reads (Array.isArray, typeof): the types say what the kernel sends, not that
// it did.

/** @typedef {import("@anywidget/types").AnyModel<CardState>} CardModel */

/**
 * A card's synced traits.
 * @typedef {object} CardState
 * @property {CardSpec} spec what to show (read-only on the page)
 * @property {Draft} draft what the person has entered so far (secret fields never)
 * @property {Errors} errors the kernel's messages for the last action
 * @property {number} handled the last action `seq` the kernel has handled
 * @property {Phase} phase
 * @property {string} summary the one line an answered card shows
 * @property {number} [pending] a review card: the open review cards of its session (Accept all / Reject all while > 1)
 */

/**
 * "open": answerable; "sent": answered but still reporting (a URL card waiting for the agent);
 * "answered": the summary only.
 * @typedef {"open" | "sent" | "answered"} Phase
 */

/** @typedef {Record<string, unknown>} Draft field name -> what the page holds for it */

/** @typedef {Record<string, string[]>} Errors field name -> messages; "" holds the card's own */

/**
 * One button of the card (every kind's buttons are drawn the same by base.js).
 * @typedef {object} CardAction
 * @property {string} event the custom message's `event`
 * @property {string} [label]
 * @property {string} [style] "primary" | "default"
 * @property {boolean} [draft] the message carries the draft and freezes the card until handled
 * @property {boolean} [default] what Enter does
 * @property {Record<string, unknown>} [data] more keys of the message
 * @property {string} [hint]
 * @property {boolean} [disabled]
 */

/**
 * The keys every kind's spec has (base.js reads only these; the kind's renderer the rest).
 * @typedef {object} CardSpec
 * @property {string} [kind] picks the body renderer
 * @property {string} [header]
 * @property {string} [message]
 * @property {CardAction[]} [actions]
 * @property {number} [deadline_at] epoch ms: a live countdown
 * @property {string[]} [secret] draft keys only ever sent inside the accept message
 */

/** @typedef {CardSpec & FormBody} FormSpec */
/** @typedef {CardSpec & PermissionBody} PermissionSpec */
/** @typedef {CardSpec & UrlBody} UrlSpec */
/** @typedef {CardSpec & AuthBody} AuthSpec */
/** @typedef {CardSpec & ReviewBody} ReviewSpec */

/**
 * @typedef {object} KindSpecs the spec each kind's renderer gets
 * @property {FormSpec} form
 * @property {PermissionSpec} permission
 * @property {UrlSpec} url
 * @property {AuthSpec} auth
 * @property {ReviewSpec} review
 */

/**
 * What base.js hands a kind's renderer.
 * @template {CardSpec} S
 * @typedef {object} KindContext
 * @property {S} spec
 * @property {HTMLElement} body the card root: the kind appends its parts to it
 * @property {string} base a page-unique id prefix
 * @property {() => Draft} draft the draft with this view's secrets
 * @property {(patch: Draft) => void} edit
 * @property {(action: CardAction | undefined) => void} act
 * @property {() => void} submit
 * @property {() => void} cancel
 * @property {() => boolean} open whether the card takes input now
 * @property {CardModel} model
 */

/**
 * What base.js paints a kind's body with.
 * @typedef {object} PaintState
 * @property {Draft} draft
 * @property {Errors} errors
 * @property {boolean} disabled
 */

/**
 * A rendered body: `paint` on every change, `focusInvalid` (true when it focused something)
 * after the kernel refused an answer, `dispose` when the card is rebuilt.
 * @typedef {object} KindView
 * @property {(state: PaintState) => void} [paint]
 * @property {(errors: Errors) => boolean} [focusInvalid]
 * @property {() => void} [dispose]
 */

// -- the form card (nbacp/widgets/form_spec.py) -------------------------------------------

/**
 * @typedef {object} FormBody
 * @property {string[]} notes
 * @property {FieldSpec[]} fields
 */

/** @typedef {ChoiceSpec | PlainFieldSpec} FieldSpec */

/**
 * @typedef {"text" | "textarea" | "email" | "url" | "date" | "datetime" | "number" | "integer"
 *   | "secret" | "boolean" | "tristate" | "unsupported"} PlainKind
 */

/**
 * A field that is not a choice: one native input (fields.js).
 * @typedef {object} PlainFieldSpec
 * @property {string} name
 * @property {PlainKind} kind
 * @property {string | null} title
 * @property {string | null} description
 * @property {boolean} required
 * @property {number | null} [min_length]
 * @property {number | null} [max_length]
 * @property {string | null} [warning] a pattern the kernel cannot check
 * @property {number | null} [min]
 * @property {number | null} [max]
 * @property {string | null} [placeholder]
 * @property {string | null} [note] why an unsupported field cannot be answered
 */

/**
 * One choice question: its options and its companion text box (choice.js, view.js).
 * @typedef {object} ChoiceSpec
 * @property {string} name
 * @property {"choice"} kind
 * @property {string | null} title
 * @property {string | null} description
 * @property {boolean} required
 * @property {boolean} multi
 * @property {ChoiceOption[]} options
 * @property {CompanionSpec | null} custom
 * @property {number | null} min_items
 * @property {number | null} max_items
 */

/**
 * @typedef {object} ChoiceOption
 * @property {string} value
 * @property {string | null} label
 * @property {string | null} description
 * @property {string | null} preview
 * @property {boolean} recommended
 */

/**
 * A choice's text box: "other" replaces a single-select's pick, "note" goes with it, "add"
 * goes with a multi-select's picks.
 * @typedef {object} CompanionSpec
 * @property {string} name
 * @property {string | null} title
 * @property {string | null} description
 * @property {string | null} placeholder
 * @property {"other" | "note" | "add"} mode
 */

/**
 * One choice question's part of the draft.
 * @typedef {object} Answer
 * @property {string[]} picked in option order
 * @property {string} custom the text box's text ("" when none)
 */

// -- the permission card (nbacp/render/permission.py) -------------------------------------

/**
 * @typedef {object} PermissionBody
 * @property {string} title
 * @property {{text: string, cwd: string} | null} command
 * @property {string[]} locations
 * @property {FileDiff[]} diffs
 * @property {{kind: string, text: string}[]} content
 * @property {{key: string, value: string, full?: string | null}[]} args
 * @property {number} args_more
 * @property {string} raw_json
 * @property {[string, string][]} details
 */

/**
 * @typedef {object} FileDiff
 * @property {string} path
 * @property {boolean} new_file
 * @property {[string, string][]} lines [tag, text]; tag "+", "-", " " or "@"
 * @property {number} added
 * @property {number} removed
 * @property {number} more lines not shown
 */

// -- the URL consent card (nbacp/widgets/url_card.py) -------------------------------------

/**
 * @typedef {object} UrlBody
 * @property {string} site
 * @property {string} reads_as
 * @property {{before: string, host: string, after: string} | string} url
 * @property {string} href "" when the link may not be opened
 * @property {string[]} warnings
 * @property {string | null} refusal
 * @property {string} link_label
 * @property {boolean} link_enabled
 * @property {string} status
 */

// -- the authentication card (nbacp/widgets/auth_card.py) ---------------------------------

/**
 * @typedef {object} AuthBody
 * @property {AuthMethod[]} methods
 * @property {string[]} notes
 */

/**
 * @typedef {object} AuthMethod
 * @property {string} id
 * @property {string} name
 * @property {string} description
 * @property {{name: string, optional: boolean}[]} vars
 * @property {string | null} [link]
 * @property {string | null} [note]
 * @property {boolean} [usable]
 */

// -- the review card (nbacp/widgets/review_card.py) --------------------------------------

/**
 * @typedef {object} ReviewBody
 * @property {"insert" | "replace" | "delete"} mode
 * @property {string} cell_type
 * @property {string} target the id of the cell replaced or deleted, or inserted after ("" = at the top)
 * @property {string} [target_line] that cell's first line, which the header ends with in backticks
 * @property {string} path
 * @property {{lines: [string, string][], added: number, removed: number, more: number}} diff
 * @property {boolean} editable the source box is shown (not for a delete)
 * @property {string} proposed the agent's source (the draft starts as it)
 * @property {boolean} live the edit reaches the open notebook's own model
 * @property {string} why_not_live
 * @property {string} instead what happens instead when not live
 * @property {string} status "Applying…" once accepted, then the outcome when it did not go in
 * @property {string} [copy] the accepted source that did not go in, to copy by hand
 */

export {};

/** @typedef {import("@anywidget/types").AnyModel<TurnState>} TurnModel */

/**
 * A turn view's synced traits (nbacp/widgets/transcript/view.py); its blocks come as messages.
 * @typedef {object} TurnState
 * @property {boolean} ended the turn is over: the view asks for the record (a message, not a trait)
 * @property {string} [code] the shared code model's reference (anywidget >= 0.11)
 */

/**
 * One node of a turn's tree (docs/turn-view.md, 'Nodes').
 * @typedef {object} TurnNode
 * @property {string} t "text" | "html" | "box" | "fold"
 * @property {string[]} [c] CSS classes
 * @property {string | HtmlTree} [v] a text node's text; an html node's sanitized HTML, as a tree
 * @property {(number | string)[]} [k] a box's children: node ids, or cards' model ids
 * @property {string} [T] a fold's title
 * @property {boolean} [o] a fold starts open
 */

/**
 * One patch operation: [code, node id, value] (docs/turn-view.md, 'Patches').
 * @typedef {[string, number, any]} TurnOp
 */

/**
 * A message from the kernel: a patch (`ops`) or the whole tree (`snap`), numbered.
 * A turn model's message: patches (`seq` with `ops`, or a whole `snap`), or once the turn
 * ended the record asked for (`type: "record"`, its `tree`).
 * @typedef {object} TurnMessage
 * @property {number} [seq]
 * @property {TurnOp[]} [ops]
 * @property {TurnOp[]} [snap]
 * @property {string} [type]
 * @property {unknown[]} [tree]
 */

/**
 * Sanitized HTML as plain values (nbacp/render/html_tree.py): strings are text,
 * `[tag, attributes, ...children]` elements.
 * @typedef {unknown[]} HtmlTree
 */
