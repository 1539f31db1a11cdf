"""The web page's pages, one module (a Flask blueprint) each.

=========================  ==========================================================
module                     URLs
=========================  ==========================================================
:mod:`.form`               ``/`` (the form), ``/api/columns`` (its column report)
:mod:`.job`                ``/result`` (start), ``/jobs/<job>``, ``/api/jobs/<job>``,
                           cancel and leave
:mod:`.result`             ``/runs/<run>``: the comparison and the chosen model
:mod:`.ask`                ``/api/runs/<run>/<model>/posterior``: question a network
                           with evidence; :data:`.ask.PANELS` for more panels
:mod:`.contributions`      ``/api/runs/<run>/<model>/contributions``: each set
                           feature's Shapley value (a panel of the evidence view)
:mod:`.predict`            ``/runs/<run>/<model>/predict``: a second file's rows
:mod:`.download`           ``/download/<run>/<file>``
=========================  ==========================================================

Each reads the application's run store, job manager and settings through
:mod:`._common`; :func:`pybnc.web.create_app` registers :data:`BLUEPRINTS`.
"""

from . import ask, contributions, download, form, job, predict, result

#: Registered in this order by :func:`pybnc.web.create_app`.
BLUEPRINTS = (form.bp, job.bp, result.bp, ask.bp, contributions.bp, predict.bp, download.bp)

__all__ = ["BLUEPRINTS"]
