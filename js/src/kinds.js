// Every card kind's body renderer registers itself here (one import per kind).
import "./form.js";
import "./permission_card.js";
import "./url_card.js";
import "./auth_card.js";
import "./review_card.js";
