"""Cross-language retrieval: questions in Spanish, German and French over English passages, and
English questions over passages in those languages; recall@1 and @5 of dense retrieval with the
bundled MiniLM and with the multilingual option (`e5-multilingual`).

    .venv/bin/python bench/crosslingual.py [--json out.json]

The 20 passages describe one fictional product, so every passage is a plausible near miss for
the others' questions. Each has an English question, questions in three languages, and a
translation of the passage into one of them (rotating es/de/fr) for the reverse direction. Written
for this check; the translations are by hand, not by a model. Dense ranking only: this measures
the embedders, not BM25 (which cannot match across languages at all).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, report

sys.path.insert(0, str(ROOT / "src"))

# (English passage, English question, {lang: question}, (lang, translated passage))
ITEMS: list[tuple[str, str, dict[str, str], tuple[str, str]]] = [
    ("Requests to the storage server time out after 30 seconds unless the timeout setting is changed.",
     "How long before a request to the storage server times out?",
     {"es": "¿Cuánto tarda en agotarse el tiempo de espera de una solicitud al servidor de almacenamiento?",
      "de": "Nach wie vielen Sekunden bricht eine Anfrage an den Speicherserver ab?",
      "fr": "Au bout de combien de temps une requête vers le serveur de stockage expire-t-elle ?"},
     ("es", "Las solicitudes al servidor de almacenamiento expiran a los 30 segundos, salvo que se cambie el ajuste del tiempo de espera.")),
    ("Failed uploads are retried three times with exponential backoff before an error is reported.",
     "How many times is a failed upload retried?",
     {"es": "¿Cuántas veces se reintenta una subida fallida?",
      "de": "Wie oft wird ein fehlgeschlagener Upload wiederholt?",
      "fr": "Combien de fois un envoi échoué est-il réessayé ?"},
     ("de", "Fehlgeschlagene Uploads werden dreimal mit exponentiellem Backoff wiederholt, bevor ein Fehler gemeldet wird.")),
    ("API keys are rotated from the admin console: create a new key, update your clients, then revoke the old key.",
     "How do I rotate the API keys?",
     {"es": "¿Cómo cambio las claves de la API por otras nuevas?",
      "de": "Wie tausche ich die API-Schlüssel aus?",
      "fr": "Comment renouveler les clés d'API ?"},
     ("fr", "Les clés d'API se renouvellent depuis la console d'administration : créez une nouvelle clé, mettez à jour vos clients, puis révoquez l'ancienne.")),
    ("Backups run every night at 2 a.m. and are kept for 14 days.",
     "How long are backups kept?",
     {"es": "¿Durante cuánto tiempo se conservan las copias de seguridad?",
      "de": "Wie lange werden die Sicherungen aufbewahrt?",
      "fr": "Combien de temps les sauvegardes sont-elles conservées ?"},
     ("es", "Las copias de seguridad se hacen cada noche a las 2 de la madrugada y se conservan durante 14 días.")),
    ("To reset a forgotten password, click 'Forgot password' on the sign-in page and follow the link sent by email.",
     "What do I do if I forgot my password?",
     {"es": "¿Qué hago si olvidé mi contraseña?",
      "de": "Was mache ich, wenn ich mein Passwort vergessen habe?",
      "fr": "Que faire si j'ai oublié mon mot de passe ?"},
     ("de", "Um ein vergessenes Passwort zurückzusetzen, klicken Sie auf der Anmeldeseite auf „Passwort vergessen“ und folgen Sie dem Link in der E-Mail.")),
    ("The free plan allows up to five users; larger teams need the business plan.",
     "How many users does the free plan allow?",
     {"es": "¿Cuántos usuarios permite el plan gratuito?",
      "de": "Wie viele Benutzer erlaubt der kostenlose Tarif?",
      "fr": "Combien d'utilisateurs le forfait gratuit autorise-t-il ?"},
     ("fr", "Le forfait gratuit autorise jusqu'à cinq utilisateurs ; les équipes plus grandes ont besoin du forfait entreprise.")),
    ("Log files are written to /var/log/app and rotated when they reach 100 MB.",
     "Where are the log files written?",
     {"es": "¿Dónde se guardan los archivos de registro?",
      "de": "Wo werden die Protokolldateien gespeichert?",
      "fr": "Où les fichiers journaux sont-ils écrits ?"},
     ("es", "Los archivos de registro se escriben en /var/log/app y se rotan cuando alcanzan 100 MB.")),
    ("Two-factor authentication can be enforced for every member of an organisation in the security settings.",
     "Can I require two-factor authentication for all members?",
     {"es": "¿Puedo exigir la autenticación en dos pasos a todos los miembros?",
      "de": "Kann ich die Zwei-Faktor-Authentifizierung für alle Mitglieder vorschreiben?",
      "fr": "Puis-je imposer l'authentification à deux facteurs à tous les membres ?"},
     ("de", "Die Zwei-Faktor-Authentifizierung kann in den Sicherheitseinstellungen für alle Mitglieder einer Organisation erzwungen werden.")),
    ("Invoices are emailed on the first day of each month and can also be downloaded as PDF from the billing page.",
     "When are invoices sent?",
     {"es": "¿Cuándo se envían las facturas?",
      "de": "Wann werden die Rechnungen verschickt?",
      "fr": "Quand les factures sont-elles envoyées ?"},
     ("fr", "Les factures sont envoyées par e-mail le premier jour de chaque mois et peuvent aussi être téléchargées en PDF depuis la page de facturation.")),
    ("Deleted projects stay in the trash for 30 days, during which an owner can restore them.",
     "Can a deleted project be restored?",
     {"es": "¿Se puede recuperar un proyecto eliminado?",
      "de": "Kann ein gelöschtes Projekt wiederhergestellt werden?",
      "fr": "Peut-on restaurer un projet supprimé ?"},
     ("es", "Los proyectos eliminados permanecen en la papelera durante 30 días, y en ese plazo un propietario puede restaurarlos.")),
    ("The desktop app needs at least 8 GB of memory and runs on Windows, macOS and Linux.",
     "What are the system requirements of the desktop app?",
     {"es": "¿Cuáles son los requisitos del sistema de la aplicación de escritorio?",
      "de": "Welche Systemanforderungen hat die Desktop-Anwendung?",
      "fr": "Quelle configuration faut-il pour l'application de bureau ?"},
     ("de", "Die Desktop-Anwendung benötigt mindestens 8 GB Arbeitsspeicher und läuft unter Windows, macOS und Linux.")),
    ("Webhooks are signed with an HMAC-SHA256 header so receivers can verify that a call came from us.",
     "How can I verify that a webhook is genuine?",
     {"es": "¿Cómo puedo comprobar que un webhook es auténtico?",
      "de": "Wie kann ich prüfen, ob ein Webhook echt ist?",
      "fr": "Comment vérifier qu'un webhook est authentique ?"},
     ("fr", "Les webhooks sont signés avec un en-tête HMAC-SHA256 afin que le destinataire puisse vérifier que l'appel vient bien de nous.")),
    ("Each account can make 600 API requests per minute; further requests receive HTTP 429.",
     "What is the API rate limit?",
     {"es": "¿Cuál es el límite de peticiones de la API?",
      "de": "Wie hoch ist das Anfragelimit der API?",
      "fr": "Quelle est la limite de requêtes de l'API ?"},
     ("es", "Cada cuenta puede hacer 600 peticiones a la API por minuto; las siguientes reciben HTTP 429.")),
    ("Data is encrypted at rest with AES-256 and in transit with TLS 1.3.",
     "Is my data encrypted?",
     {"es": "¿Están cifrados mis datos?",
      "de": "Werden meine Daten verschlüsselt?",
      "fr": "Mes données sont-elles chiffrées ?"},
     ("de", "Die Daten werden im Ruhezustand mit AES-256 und bei der Übertragung mit TLS 1.3 verschlüsselt.")),
    ("You can export all your documents as a ZIP archive from the account page at any time.",
     "How do I export my documents?",
     {"es": "¿Cómo exporto mis documentos?",
      "de": "Wie exportiere ich meine Dokumente?",
      "fr": "Comment exporter mes documents ?"},
     ("fr", "Vous pouvez à tout moment exporter tous vos documents sous forme d'archive ZIP depuis la page du compte.")),
    ("Search results are cached for ten minutes; editing a document clears the cache immediately.",
     "How long are search results cached?",
     {"es": "¿Cuánto tiempo se guardan en caché los resultados de búsqueda?",
      "de": "Wie lange werden Suchergebnisse zwischengespeichert?",
      "fr": "Combien de temps les résultats de recherche restent-ils en cache ?"},
     ("es", "Los resultados de búsqueda se guardan en caché durante diez minutos; editar un documento vacía la caché al instante.")),
    ("Guests can view shared folders but cannot edit or delete files.",
     "What can guest users do?",
     {"es": "¿Qué pueden hacer los usuarios invitados?",
      "de": "Was dürfen Gastbenutzer tun?",
      "fr": "Que peuvent faire les utilisateurs invités ?"},
     ("de", "Gäste können freigegebene Ordner ansehen, aber keine Dateien bearbeiten oder löschen.")),
    ("The mobile app sends a push notification when someone mentions you in a comment.",
     "Will I be notified when someone mentions me?",
     {"es": "¿Recibiré un aviso cuando alguien me mencione?",
      "de": "Werde ich benachrichtigt, wenn mich jemand erwähnt?",
      "fr": "Serai-je averti quand quelqu'un me mentionne ?"},
     ("fr", "L'application mobile envoie une notification lorsque quelqu'un vous mentionne dans un commentaire.")),
    ("To cancel a subscription, open the billing page and choose 'Cancel plan'; access continues until the period ends.",
     "How do I cancel my subscription?",
     {"es": "¿Cómo cancelo mi suscripción?",
      "de": "Wie kündige ich mein Abonnement?",
      "fr": "Comment résilier mon abonnement ?"},
     ("es", "Para cancelar una suscripción, abra la página de facturación y elija «Cancelar plan»; el acceso sigue hasta que termine el periodo.")),
    ("Single sign-on supports SAML 2.0 and OpenID Connect identity providers such as Okta and Azure AD.",
     "Which single sign-on protocols are supported?",
     {"es": "¿Qué protocolos de inicio de sesión único se admiten?",
      "de": "Welche Single-Sign-On-Protokolle werden unterstützt?",
      "fr": "Quels protocoles d'authentification unique sont pris en charge ?"},
     ("de", "Single Sign-On unterstützt Identitätsanbieter mit SAML 2.0 und OpenID Connect, etwa Okta und Azure AD.")),
]


def _recall(queries: np.ndarray, passages: np.ndarray, targets: list[int]) -> dict[str, float]:
    ranks = []
    for vector, target in zip(queries, targets, strict=True):
        order = np.argsort(-(passages @ vector), kind="stable")
        ranks.append(int(np.nonzero(order == target)[0][0]))
    return {"recall@1": round(float(np.mean([r < 1 for r in ranks])), 3),
            "recall@5": round(float(np.mean([r < 5 for r in ranks])), 3), "queries": len(ranks)}


def measure_one(name: str) -> dict[str, Any]:
    """Recall per direction and the time per passage of one embedder (in this process)."""
    from citeline.errors import ConfigurationError
    from citeline.index.embedder import embed_queries, get_embedder

    english = [item[0] for item in ITEMS]
    translated = [item[3][1] for item in ITEMS]
    try:
        embedder = get_embedder(name, batch_size=16)
    except ConfigurationError as exc:
        return {"skipped": str(exc)}
    embedder.embed(["warm-up"])
    started = time.perf_counter()
    en_passages = embedder.embed(english)
    result: dict[str, Any] = {"ms_per_passage": round((time.perf_counter() - started) / len(english) * 1000, 1)}
    for lang in ("es", "de", "fr"):
        questions = embed_queries(embedder, [item[2][lang] for item in ITEMS])
        result[f"{lang}->en"] = _recall(questions, en_passages, list(range(len(ITEMS))))
    all_foreign = embed_queries(embedder, [item[2][lang] for item in ITEMS for lang in ("es", "de", "fr")])
    result["xx->en"] = _recall(all_foreign, en_passages, [i for i in range(len(ITEMS)) for _ in range(3)])
    english_questions = embed_queries(embedder, [item[1] for item in ITEMS])
    result["en->xx"] = _recall(english_questions, embedder.embed(translated), list(range(len(ITEMS))))
    result["en->en"] = _recall(english_questions, en_passages, list(range(len(ITEMS))))
    return result


def measure(embedders: tuple[str, ...] = ("minilm-onnx", "e5-multilingual")) -> dict[str, Any]:
    """`measure_one` for each embedder, each in a fresh process: citeline runs one embedder per
    process, and two runtimes' idle threads (ONNX Runtime's and OpenMP's spin) would slow each other."""
    out: dict[str, Any] = {"passages": len(ITEMS)}
    for name in embedders:
        done = subprocess.run([sys.executable, __file__, "--only", name], capture_output=True, text=True,
                              timeout=900, check=False, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        if done.returncode != 0:
            raise SystemExit(f"crosslingual {name} failed: {done.stderr[-2000:]}")
        out[name] = json.loads(done.stdout.splitlines()[-1])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--only", default=None, help="measure one embedder in this process, print one JSON line")
    args = parser.parse_args()
    if args.only:
        print(json.dumps(measure_one(args.only)))
        return 0
    result = measure()
    report(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
