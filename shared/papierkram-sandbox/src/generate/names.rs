//! Invented names for the demo account. Any resemblance to real businesses is accidental.

/// Customers of the agency.
pub(crate) const CUSTOMERS: [&str; 28] = [
    "Bäckerei Sonnenkorn GmbH",
    "Elbdeich Architekten PartG mbB",
    "Friesenhof Ferienwohnungen",
    "Gezeiten Segelschule e.K.",
    "Hafenkontor Logistik GmbH",
    "Deichgraf Immobilien KG",
    "Möwenblick Hotel GmbH",
    "Nordwind Physiotherapie",
    "Kompass Steuerberatung Lindqvist",
    "Leuchtfeuer Verlag GmbH",
    "Strandgut Manufaktur",
    "Küstenklar Gebäudeservice",
    "Ankerplatz Gastronomie GmbH",
    "Brückner & Sohn Tischlerei",
    "Zahnarztpraxis Dünenweg",
    "Seestern Kita gGmbH",
    "Fördeblick Optik",
    "Kranich Fahrradmanufaktur GmbH",
    "Wattenmeer Naturerlebnis e.V.",
    "Heringsdorfer Feinkost OHG",
    "Lotsenhaus Eventagentur",
    "Reetdach Handwerk GmbH",
    "Schleusenwerk Maschinenbau AG",
    "Tidenhub Surfshop",
    "Treibholz Möbelstudio",
    "Fischerhus Restaurant",
    "Polarstern Versicherungsmakler GmbH",
    "Sturmvogel Sportverein e.V.",
];

/// Suppliers, paired with what we buy from them (a `vouchers::Kind` index).
pub(crate) const SUPPLIERS: [&str; 12] = [
    "Kontorhaus Hausverwaltung GmbH",
    "Funkturm Telekommunikation AG",
    "Wolkenwerk Rechenzentrum GmbH",
    "Lizenzlotse Software GmbH",
    "Mobilwerk Leasing GmbH",
    "Bürowelt Jacobsen KG",
    "Pixelhafen Bildagentur GmbH",
    "Codewerft Entwicklerkollektiv",
    "Druckerei Schwarz auf Weiß GmbH",
    "Seitenwind Fachbuchhandlung",
    "Kaffeerösterei Bohnenkap",
    "Stadtwerke Fördestadt",
];

/// (city, zip, area code)
pub(crate) const CITIES: [(&str, &str, &str); 10] = [
    ("Kiel", "24103", "0431"),
    ("Hamburg", "20095", "040"),
    ("Lübeck", "23552", "0451"),
    ("Flensburg", "24937", "0461"),
    ("Rostock", "18055", "0381"),
    ("Husum", "25813", "04841"),
    ("Bremen", "28195", "0421"),
    ("Schwerin", "19053", "0385"),
    ("Neumünster", "24534", "04321"),
    ("Eckernförde", "24340", "04351"),
];

pub(crate) const STREETS: [&str; 10] = [
    "Hafenstraße",
    "Am Deich",
    "Lindenallee",
    "Fördeweg",
    "Kastanienweg",
    "Mühlenstraße",
    "Strandpromenade",
    "Werftstraße",
    "Lotsenstieg",
    "Dünenring",
];

/// (first name, salutation)
pub(crate) const FIRST_NAMES: [(&str, &str); 20] = [
    ("Anke", "Frau"),
    ("Birte", "Frau"),
    ("Carsten", "Herr"),
    ("Dörte", "Frau"),
    ("Enno", "Herr"),
    ("Frauke", "Frau"),
    ("Gesa", "Frau"),
    ("Hauke", "Herr"),
    ("Imke", "Frau"),
    ("Jannes", "Herr"),
    ("Kerrin", "Frau"),
    ("Lasse", "Herr"),
    ("Maren", "Frau"),
    ("Nils", "Herr"),
    ("Ole", "Herr"),
    ("Petra", "Frau"),
    ("Rieke", "Frau"),
    ("Sönke", "Herr"),
    ("Telse", "Frau"),
    ("Wiebke", "Frau"),
];

pub(crate) const LAST_NAMES: [&str; 20] = [
    "Albers",
    "Boysen",
    "Carstensen",
    "Dethlefsen",
    "Ehlers",
    "Feddersen",
    "Godbersen",
    "Harder",
    "Iwersen",
    "Jessen",
    "Kruse",
    "Lorenzen",
    "Martensen",
    "Nissen",
    "Ohlsen",
    "Paulsen",
    "Rickmers",
    "Sievers",
    "Thomsen",
    "Wulff",
];

pub(crate) const POSITIONS: [&str; 6] = [
    "Geschäftsführung",
    "Marketing",
    "Buchhaltung",
    "Einkauf",
    "Projektleitung",
    "Vertrieb",
];

/// Project kinds: (name prefix, description).
pub(crate) const PROJECT_KINDS: [(&str, &str); 8] = [
    (
        "Website-Relaunch",
        "Neuer Webauftritt mit CMS, responsivem Design und Datenschutz-Check.",
    ),
    (
        "Online-Shop",
        "Shop mit Zahlungsanbindung, Produktimport und Versandregeln.",
    ),
    (
        "Buchungsportal",
        "Online-Buchung mit Kalenderabgleich und Bestätigungsmails.",
    ),
    (
        "Corporate Design",
        "Logo-Feinschliff, Farbwelt, Geschäftsausstattung und Styleguide.",
    ),
    (
        "Intranet",
        "Internes Portal für Dokumente, Termine und Ankündigungen.",
    ),
    (
        "SEO & Content",
        "Suchmaschinenoptimierung, Redaktionsplan und neue Landingpages.",
    ),
    (
        "Barrierefreiheit",
        "Audit nach BITV/WCAG und Umsetzung der Korrekturen.",
    ),
    (
        "App-Prototyp",
        "Klickbarer Prototyp und technische Machbarkeitsstudie.",
    ),
];

/// Tracker tasks of every project with the price-list position they are billed with.
pub(crate) const TASKS: [(&str, usize); 3] = [
    ("Konzeption & Abstimmung", 2),
    ("Gestaltung", 1),
    ("Umsetzung", 0),
];

pub(crate) const TIME_COMMENTS: [&str; 8] = [
    "Abstimmung mit dem Kunden",
    "Entwürfe überarbeitet",
    "Templates umgesetzt",
    "Fehler aus dem Testlauf behoben",
    "Inhalte eingepflegt",
    "Review und Korrekturschleife",
    "Deployment auf Staging",
    "Dokumentation ergänzt",
];

pub(crate) const MONTHS: [&str; 12] = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
];

pub(crate) const COLORS: [Option<&str>; 5] = [
    None,
    Some("blue"),
    Some("green"),
    Some("orange"),
    Some("red"),
];
