"""The routers of the service, one module per resource. A route reads the request, calls the
service layer (`citeline.api.service`) and maps what it returns to a response model
(`citeline.api.presenters`); routers never import one another.
"""
